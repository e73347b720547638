import Foundation

/// The service worker both web apps install (Selene's and Stitchuation's): it keeps the shell
/// (style, script, icon, the offline page) and a copy of the pages last opened that `readable`
/// matches, so they can be read with no network; everything else goes to the network as usual.
/// Pages and the shell are fetched fresh whenever the network answers (a new release shows at
/// once) and taken from the copies when it doesn't, or not within a few seconds. A page may ask for the copies to be
/// forgotten (`postMessage('forget-pages')`, or deleting the `pages` cache itself): signing out
/// on a shared phone leaves nothing of the account behind.
public enum ServiceWorker {
    /// - Parameters:
    ///   - name: the caches' prefix ("stitch" → `stitch-shell-v1`, `stitch-pages-v1`).
    ///   - shell: the files kept at install, the offline page among them.
    ///   - readable: a JavaScript regular expression (source) for the paths kept for reading offline.
    ///   - offline: the page answered for a page that isn't kept.
    ///   - keep: how many pages are kept, the oldest dropped first.
    ///   - pictures: a JavaScript regular expression (source) for picture addresses (path and
    ///     query) kept once seen, for pages read offline: they never change (content-addressed),
    ///     so they come from the copy first. The small sizes, not the originals.
    ///   - keepPictures: how many pictures are kept, the oldest dropped first.
    ///   - navigateDeadline: milliseconds a page's request may stay unanswered before a kept copy
    ///     of it is shown instead (marked `<html data-kept-copy>`); the request goes on and keeps
    ///     its answer for the next visit.
    ///   - signedOut: a JavaScript regular expression (source) for the pages a browser lands on
    ///     signed out (signing out, or a session the server ended, leads there): opening one
    ///     forgets every kept page and picture before it is answered, whatever its script does.
    ///   - extra: more of the worker (Selene's push notifications).
    public static func script(name: String, shell: [String], readable: String, offline: String, keep: Int = 60,
                              pictures: String? = nil, keepPictures: Int = 500, navigateDeadline: Int = 4000,
                              signedOut: String, extra: String = "") -> String {
        let files = shell.map { "'\($0)'" }.joined(separator: ", ")
        return """
        const SHELL = '\(name)-shell-v1', PAGES = '\(name)-pages-v1', PICTURES = '\(name)-pictures-v1', KEEP = \(keep), KEEP_PICTURES = \(keepPictures);
        const SHELL_FILES = [\(files)];
        const READABLE = /\(readable)/;
        const PICTURE = \(pictures.map { "/\($0)/" } ?? "null");
        const NAVIGATE_DEADLINE = \(navigateDeadline), NAVIGATE_GIVE_UP = 30000;
        const SIGNED_OUT = /\(signedOut)/;

        self.addEventListener('install', function (event) {
          event.waitUntil(caches.open(SHELL).then(function (cache) { return cache.addAll(SHELL_FILES); }).then(function () { return self.skipWaiting(); }));
        });
        self.addEventListener('activate', function (event) {
          event.waitUntil(caches.keys().then(function (names) {
            return Promise.all(names.filter(function (n) { return n !== SHELL && n !== PAGES && n !== PICTURES; }).map(function (n) { return caches.delete(n); }));
          }).then(function () { return self.clients.claim(); }));
        });
        self.addEventListener('message', function (event) {
          if (event.data === 'forget-pages') event.waitUntil(forget());
        });
        function forget() { return Promise.all([caches.delete(PAGES), caches.delete(PICTURES)]); }

        function keep(request, response) {
          if (!response.ok || response.redirected) return;
          var copy = response.clone();
          caches.open(PAGES).then(function (cache) {
            cache.put(request, copy).then(function () {
              cache.keys().then(function (keys) { keys.slice(0, Math.max(0, keys.length - KEEP)).forEach(function (k) { cache.delete(k); }); });
            });
          });
        }

        // A kept copy, marked so the page can say it is one (`<html data-kept-copy>`).
        function keptCopy(request) {
          return caches.match(request, { cacheName: PAGES }).then(function (hit) {
            if (!hit) return null;
            return hit.text().then(function (html) {
              var headers = new Headers(hit.headers);
              headers.delete('content-length'); headers.delete('content-encoding');  // the text is read, and longer
              return new Response(html.replace('<html', '<html data-kept-copy'), { status: hit.status, headers: headers });
            });
          });
        }
        // A page comes from the network; a kept copy stands in when the network fails or is still
        // silent after NAVIGATE_DEADLINE ms (one bar of signal, a captive portal, a server
        // restarting: the browser says "online" all the while). The request goes on meanwhile, for
        // up to NAVIGATE_GIVE_UP ms, and keeps what it brings for the next visit. With no copy the
        // page waits for the network, and on failure the offline page answers.
        function navigate(request, readable) {
          var abort = typeof AbortController === 'function' ? new AbortController() : null;
          var giveUp = setTimeout(function () { if (abort) abort.abort(); }, NAVIGATE_GIVE_UP);
          var network = fetch(request, abort ? { signal: abort.signal } : {}).then(function (response) {
            clearTimeout(giveUp);
            if (readable) keep(request, response);
            return response;
          }, function (error) { clearTimeout(giveUp); throw error; });
          var fallback = function () {
            return (readable ? keptCopy(request) : Promise.resolve(null)).then(function (copy) {
              return copy || caches.match('\(offline)', { cacheName: SHELL });
            });
          };
          if (!readable) return network.catch(fallback);
          return new Promise(function (resolve) {
            var answered = false;
            var answer = function (response) { if (!answered && response) { answered = true; resolve(response); } };
            var timer = setTimeout(function () { keptCopy(request).then(answer); }, NAVIGATE_DEADLINE);
            network.then(function (response) { clearTimeout(timer); answer(response); },
                         function () { clearTimeout(timer); fallback().then(answer); });
          });
        }

        self.addEventListener('fetch', function (event) {
          var request = event.request, url = new URL(request.url);
          if (request.method !== 'GET' || url.origin !== self.location.origin) return;
          if (PICTURE && PICTURE.test(url.pathname + url.search)) {
            event.respondWith(caches.match(request, { cacheName: PICTURES }).then(function (hit) {
              return hit || fetch(request).then(function (response) {
                if (response.ok) {
                  var copy = response.clone();
                  caches.open(PICTURES).then(function (cache) {
                    cache.put(request, copy).then(function () {
                      cache.keys().then(function (keys) { keys.slice(0, Math.max(0, keys.length - KEEP_PICTURES)).forEach(function (k) { cache.delete(k); }); });
                    });
                  });
                }
                return response;
              });
            }));
          } else if (SHELL_FILES.indexOf(url.pathname) >= 0) {
            event.respondWith(fetch(request).then(function (response) {
              if (response.ok) { var copy = response.clone(); caches.open(SHELL).then(function (cache) { cache.put(url.pathname, copy); }); }
              return response;
            }).catch(function () { return caches.match(url.pathname, { cacheName: SHELL }); }));
          } else if (request.mode === 'navigate' && SIGNED_OUT.test(url.pathname)) {
            event.respondWith(forget().then(function () { return navigate(request, false); }));
          } else if (request.mode === 'navigate') {
            event.respondWith(navigate(request, READABLE.test(url.pathname)));
          }
        });
        \(extra)
        """
    }
}
