// The service worker both web apps install (ServerCommon/ServiceWorker.swift writes the constants
// above this: SHELL, PAGES, PICTURES, KEEP, KEEP_PICTURES, SHELL_FILES, READABLE, PICTURE,
// NAVIGATE_DEADLINE, NAVIGATE_GIVE_UP, SIGNED_OUT, OFFLINE; and may add more after it).
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
      return copy || caches.match(OFFLINE, { cacheName: SHELL });
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
