import Foundation
import ServerCommon

/// The installable web app: its manifest, icon, offline page and service worker (the one both web
/// apps share, `ServiceWorker`). The worker keeps the inventory, the stash and its canvases, the
/// projects and each project's page, and the shopping list as last seen, so a stitcher in a shop
/// with no signal can still read them; the page says since when (app.js). Signing out forgets them.
enum PWA {
    /// The icon is in the manifest itself: the browser checks it after every page is idle, and a
    /// path there is one more request after the load event (from the cache on a repeat visit).
    static let manifest = #"""
    {
      "name": "Stitchuation",
      "short_name": "Stitchuation",
      "description": "Your threads, canvases, projects and shopping list.",
      "id": "/app/",
      "start_url": "/app/inventory",
      "scope": "/app/",
      "display": "standalone",
      "background_color": "#F5F0E8",
      "theme_color": "#F5F0E8",
      "icons": [
        {"src": "\#(svgDataURL(icon))", "sizes": "any", "type": "image/svg+xml", "purpose": "any maskable"}
      ]
    }
    """#

    /// A needle and its thread on the app's cream.
    static let icon = #"""
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512"><rect width="512" height="512" rx="96" fill="#F5F0E8"/><path d="M356 108L150 374" stroke="#3B2F2F" stroke-width="22" stroke-linecap="round"/><ellipse cx="344" cy="124" rx="10" ry="22" transform="rotate(38 344 124)" fill="#F5F0E8" stroke="#3B2F2F" stroke-width="8"/><path d="M344 124c-90 10-170 60-150 130s150 40 170 110-60 90-120 70" fill="none" stroke="#C4704B" stroke-width="16" stroke-linecap="round"/></svg>
    """#

    /// Paths kept for reading offline (and the form for adding a thread, which works offline: app.js);
    /// a canvas's colours too, to hold skeins against in a shop with no signal.
    static let readable = #"^\/app\/(inventory(\/new)?|stash(\/[0-9a-f-]{36}(\/palette)?)?|projects(\/[0-9a-f-]{36})?|shopping)$"#

    static let worker = ServiceWorker.script(
        name: "stitch", shell: [SiteURL.stylesheet.path, SiteURL.script.path, SiteURL.icon.path, SiteURL.offline.path],
        readable: readable, offline: SiteURL.offline.path,
        // List thumbnails, so the kept stash and projects show their pictures offline.
        pictures: #"^\/app\/images\/[^\/?]+\?w=192$"#, signedOut: #"^\/app\/(signin|signup)"#)

    /// What the worker answers for a page it hasn't kept.
    static let offlinePage = Layout.document("Offline", body: el("main", ["id": "main", "class": "offline"],
        Layout.emptyState(icon: "inventory", title: "You're offline",
                          message: "This page wasn't opened while you had a connection, so there is no copy of it here. Your inventory, stash, projects and shopping list can be read as you last saw them.",
                          action: el("a", ["class": "button primary", "href": SiteURL.inventory.path], text("Inventory"))))).render()
}
