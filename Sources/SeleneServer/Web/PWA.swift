import Foundation
import ServerCommon

/// The installable web app: its manifest, icon, offline page and service worker. The worker
/// keeps the shell (style, script, the offline page), keeps a copy of the note, notes, tasks and
/// briefing pages last opened (read offline), and shows Web Push notifications.
enum PWA {
    /// The icon is in the manifest itself: the browser checks it after every page is idle, and a
    /// path there is one more request after the load event (from the cache on a repeat visit).
    static let manifest = #"""
    {
      "name": "Selene",
      "short_name": "Selene",
      "description": "Your notes, threads of thought and morning briefing, on your own machine.",
      "id": "/app/",
      "start_url": "/app/chat",
      "scope": "/app/",
      "display": "standalone",
      "background_color": "#F5F4FA",
      "theme_color": "#1D2138",
      "icons": [
        {"src": "\#(svgDataURL(icon))", "sizes": "any", "type": "image/svg+xml", "purpose": "any maskable"}
      ]
    }
    """#

    static let icon = #"""
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" rx="96" fill="#1D2138"/><path d="M330 120a150 150 0 1 0 62 222A120 120 0 1 1 330 120z" fill="#E8C46A"/></svg>
    """#

    /// Pages kept for reading offline: a note, the list of notes, tasks, the briefing, threads
    /// (the worker both web apps share, `ServiceWorker`); and Web Push notifications.
    static let worker = ServiceWorker.script(
        name: "selene", shell: [SiteURL.stylesheet.path, SiteURL.script.path, SiteURL.icon.path, SiteURL.offline.path],
        readable: #"^\/app\/(notes(\/\d+)?|notes\/new|tasks|briefing|threads(\/\d+)?)$"#, offline: "/app/offline",
        signedOut: #"^\/app\/(signin|setup)"#, extra: push)

    static let push = #"""
    self.addEventListener('push', function (event) {
      var data = {};
      try { data = event.data ? event.data.json() : {}; } catch (e) { data = { body: event.data ? event.data.text() : '' }; }
      event.waitUntil(self.registration.showNotification(data.title || 'Selene', {
        body: data.body || '', tag: data.tag, icon: '/app/static/icon.svg', data: { url: data.url || '/app/chat' }
      }));
    });
    self.addEventListener('notificationclick', function (event) {
      event.notification.close();
      var target = (event.notification.data && event.notification.data.url) || '/app/chat';
      event.waitUntil(self.clients.matchAll({ type: 'window' }).then(function (list) {
        for (var i = 0; i < list.length; i++) { if ('focus' in list[i]) { list[i].navigate(target); return list[i].focus(); } }
        return self.clients.openWindow(target);
      }));
    });
    """#
}
