// The web app's script (served as /app/static/app.<hash>.js): small vanilla JavaScript that only
// enhances: every form works without it.
(function () {
  'use strict';
  // Offline: the worker keeps the inventory, stash, projects and shopping list as last seen.
  // Each page remembers when it was seen online; read offline, it says "as of" then. Signing in
  // or out forgets every kept page and picture (a shared phone keeps nothing of the account).
  var PAGES = 'stitch-pages-v1', PICTURES = 'stitch-pictures-v1', seenKey = 'stitch-seen:' + location.pathname + location.search;
  if (/^\/app\/(signin|signup)/.test(location.pathname)) {
    if (window.caches) { caches.delete(PAGES); caches.delete(PICTURES); }
    try { Object.keys(localStorage).forEach(function (k) { if (k.indexOf('stitch-seen:') === 0) localStorage.removeItem(k); }); } catch (e) {}
  } else if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }).catch(function () {});
  }
  function showOffline() {
    var main = document.getElementById('main');
    if (!main || document.getElementById('offline-note')) return;
    var seen = null;
    try { seen = localStorage.getItem(seenKey); } catch (e) {}
    var note = document.createElement('p');
    note.id = 'offline-note';
    note.className = 'flash';
    note.setAttribute('role', 'status');
    // Online but answered from the worker's copy: the server didn't answer, or not in time.
    var why = navigator.onLine === false ? 'Offline' : 'The server isn\u2019t answering';
    note.textContent = (seen ? why + ' — as of ' + new Date(Number(seen)).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })
                             : why + ' — as last seen') + '. Quantities, purchases, new threads and journal notes are kept on this device '
                             + 'and sent when you are back online; other changes wait for a connection.';
    // What the page keeps offline (below) stays usable; every other button waits for the network.
    Array.prototype.forEach.call(document.querySelectorAll('form[method=post] button'), function (b) {
      if (keptOffline(b.form) && !b.hasAttribute('formaction')) return;
      b.disabled = true; b.setAttribute('data-offline-disabled', '');
    });
    window.addEventListener('online', function () {
      Array.prototype.forEach.call(document.querySelectorAll('[data-offline-disabled]'), function (b) { b.disabled = false; b.removeAttribute('data-offline-disabled'); });
      var shown = document.getElementById('offline-note');
      if (shown) shown.remove();
    }, { once: true });
    if (seen) note.setAttribute('data-as-of', new Date(Number(seen)).toISOString());
    main.insertBefore(note, main.firstChild);
  }
  // Changes made with no network: the stepper, "Bought" on the shopping list, a new thread, a journal note. Each is kept on the
  // device at once (localStorage: written before the next line runs, so a reload or a page
  // change straight after loses nothing) with the moment it was made and the account that made
  // it, shown on the page as it will be, and sent to /app/sync when the network is back, where
  // last write wins by that moment (a later change from another device is kept, and shown) — but
  // a step and a purchase are skeins added to what is there, each once for its id.
  var main = document.getElementById('main');
  var user = main && main.getAttribute('data-user');
  var OUTBOX = 'stitch-outbox';
  var outbox = function () { try { return JSON.parse(localStorage.getItem(OUTBOX) || '[]'); } catch (e) { return []; } };
  var saveOutbox = function (list) { localStorage.setItem(OUTBOX, JSON.stringify(list)); };
  var mine = function () { return outbox().filter(function (c) { return c.user === user; }); };
  var pending = function (type, id) { return mine().filter(function (c) { return c.type === type && c.id === id; })[0]; };
  var newId = function () {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16)); b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join('');
    return [h.slice(0, 8), h.slice(8, 12), h.slice(12, 16), h.slice(16, 20), h.slice(20)].join('-');
  };
  // A request that hangs (a weak signal, a captive portal) counts as failed after a few seconds.
  function fetchWithDeadline(url, options) {
    var abort = window.AbortController ? new AbortController() : null;
    var timer = setTimeout(function () { if (abort) abort.abort(); }, 6000);
    if (abort) options.signal = abort.signal;
    return fetch(url, options).then(function (r) { clearTimeout(timer); return r; }, function (e) { clearTimeout(timer); throw e; });
  }
  function postWithDeadline(url, body) {
    return fetchWithDeadline(url, { method: 'POST', credentials: 'same-origin', body: body });
  }
  function keptOffline(form) {
    if (!form) return false;
    var action = (form.getAttribute('action') || '').split('?')[0];  // an upload form names its token after '?'
    return form.classList.contains('step') || /^\/app\/(inventory\/new|shopping\/bought)$/.test(action) || /^\/app\/projects\/[0-9a-f-]{36}\/entries$/.test(action);
  }
  var keep = function (type, id, fields, label) {
    var list = outbox(), now = new Date().toISOString();
    var found = list.filter(function (c) { return c.user === user && c.type === type && c.id === id; })[0];
    if (found) { Object.keys(fields).forEach(function (k) { found.fields[k] = fields[k]; }); found.changedAt = now; }
    else list.push({ user: user, type: type, id: id, fields: fields, changedAt: now, label: label });
    saveOutbox(list);
    showKept();
  };
  var status = function (id) {
    var box = document.getElementById(id);
    if (!box && main) {
      box = document.createElement('p');
      box.id = id; box.className = 'flash'; box.setAttribute('role', 'status');
      main.insertBefore(box, main.firstChild);
    }
    return box;
  };
  var showKept = function () {
    var n = mine().length, box = document.getElementById('outbox-kept');
    if (!n) { if (box) box.remove(); return; }
    status('outbox-kept').textContent = (n === 1 ? '1 change' : n + ' changes') + ' kept on this device, to be sent when you are back online.';
  };
  var setQuantity = function (row, quantity) {
    var output = row.querySelector('output.qty');
    if (output) output.textContent = String(quantity);
    var minus = row.querySelector('form.step button[name=delta][value="-1"]');
    if (minus) minus.disabled = quantity === 0;
  };
  var keptSteps = function (thread) { return mine().filter(function (c) { return c.type === 'step' && c.fields.thread === thread; }); };
  // A quantity with the steps still kept for its thread added, as the server will count them.
  var withKeptSteps = function (thread, quantity) {
    return keptSteps(thread).reduce(function (q, c) { return Math.max(0, q + c.fields.delta); }, quantity);
  };
  var threadRow = function (id) { return document.querySelector('#threads .row[data-thread="' + id + '"]'); };
  // An inventory row like the server's, built here: `f` holds brand, number, colorName, colorHex
  // and quantity; `subtitle` the line under it; `link` whether the title opens the thread's page.
  var buildThreadRow = function (id, f, subtitle, link) {
    var row = document.createElement('li');
    row.className = 'row'; row.setAttribute('data-thread', id);
    var swatch = document.createElement('span'); swatch.className = 'swatch';
    if (f.colorHex) swatch.style.background = f.colorHex; else swatch.textContent = '?';
    var grow = document.createElement('div'); grow.className = 'grow';
    var title = document.createElement(link ? 'a' : 'span'); title.className = 'title'; title.textContent = f.brand + ' ' + f.number;
    if (link) title.href = '/app/inventory/' + id;
    var sub = document.createElement('div'); sub.className = 'muted'; sub.textContent = subtitle;
    grow.appendChild(title); grow.appendChild(sub);
    var stepper = document.createElement('form'); stepper.method = 'post'; stepper.className = 'step stepper';
    stepper.setAttribute('action', '/app/inventory/' + id + '/step');
    var csrf = document.createElement('input'); csrf.type = 'hidden'; csrf.name = '_csrf'; csrf.value = main.getAttribute('data-csrf');
    var stepButton = function (delta, text, label) {
      var button = document.createElement('button'); button.className = 'round'; button.type = 'submit';
      button.name = 'delta'; button.value = String(delta); button.textContent = text;
      button.setAttribute('aria-label', label + ' ' + f.brand + ' ' + f.number);
      return button;
    };
    var output = document.createElement('output'); output.className = 'qty'; output.setAttribute('aria-live', 'polite');
    output.setAttribute('aria-label', 'Quantity of ' + f.brand + ' ' + f.number);
    stepper.appendChild(csrf); stepper.appendChild(stepButton(-1, '−', 'One less')); stepper.appendChild(output); stepper.appendChild(stepButton(1, '+', 'One more'));
    row.appendChild(swatch); row.appendChild(grow); row.appendChild(stepper);
    if (f.quantity !== undefined) setQuantity(row, f.quantity);
    return row;
  };
  var threadList = function () {
    var list = document.getElementById('threads');
    if (!list) {
      list = document.createElement('ul'); list.className = 'list'; list.id = 'threads';
      var empty = main.querySelector('.empty-state, .empty'); if (empty) empty.replaceWith(list); else main.appendChild(list);
    }
    return list;
  };
  // A thread added offline, on the inventory page: a row like the server's, marked as waiting.
  var addThreadRow = function (change) {
    var inventory = document.querySelector('form[role=search][action="/app/inventory"]');
    if (!inventory || threadRow(change.id)) return;
    var list = threadList(), f = change.fields;
    var row = buildThreadRow(change.id, { brand: f.brand, number: f.number, colorHex: f.colorHex },
                             [f.colorName, 'kept on this device'].filter(Boolean).join(' · '), false);
    row.classList.add('pending');
    list.insertBefore(row, list.firstChild);
  };
  // A journal note written offline, on its project's page.
  // Photos of a journal entry kept offline, in IndexedDB (they don't fit localStorage), each
  // with its account, entry and place.
  var photoStore = function (mode, work) {
    return new Promise(function (resolve, reject) {
      var opening = indexedDB.open('stitch-kept-photos', 1);
      opening.onupgradeneeded = function () { opening.result.createObjectStore('photos', { keyPath: 'key' }); };
      opening.onerror = function () { reject(opening.error); };
      opening.onsuccess = function () {
        var db = opening.result, tx = db.transaction('photos', mode), asked = work(tx.objectStore('photos'));
        tx.oncomplete = function () { db.close(); resolve(asked && 'result' in asked ? asked.result : undefined); };
        tx.onerror = tx.onabort = function () { db.close(); reject(tx.error); };
      };
    });
  };
  var keepPhotos = function (entryId, projectId, files) {
    if (!files.length) return Promise.resolve();
    return photoStore('readwrite', function (store) {
      files.forEach(function (file, i) {
        store.put({ key: entryId + '/' + i, user: user, entryId: entryId, projectId: projectId, order: i, name: file.name, blob: file });
      });
    });
  };
  // Kept photos whose entry has reached the server are sent to it, an entry's photos at once in
  // their order. Refused (the entry wasn't kept, or a photo isn't one): dropped and said; not
  // answered: kept for the next try.
  var sendingPhotos = false;
  var sendKeptPhotos = function () {
    if (sendingPhotos || otherAccount || !user || !window.indexedDB || navigator.onLine === false) return;
    var waiting = {};
    mine().forEach(function (c) { if (c.type === 'journalEntry') waiting[c.id] = true; });
    sendingPhotos = true;
    photoStore('readonly', function (store) { return store.getAll(); }).then(function (all) {
      var byEntry = {};
      (all || []).forEach(function (p) { if (p.user === user && !waiting[p.entryId]) (byEntry[p.entryId] = byEntry[p.entryId] || []).push(p); });
      return Object.keys(byEntry).reduce(function (chain, entryId) {
        return chain.then(function () {
          var list = byEntry[entryId].sort(function (a, b) { return a.order - b.order; }), body = new FormData();
          list.forEach(function (p) { body.append('images', p.blob, p.name); });
          return fetch('/app/projects/' + list[0].projectId + '/entries/' + entryId + '/photos', {
            method: 'POST', credentials: 'same-origin', body: body, headers: { 'X-CSRF-Token': main.getAttribute('data-csrf') || '' }
          }).then(function (response) {
            if (response.status === 403 || response.status === 429 || response.status >= 500) return;
            return photoStore('readwrite', function (store) { list.forEach(function (p) { store.delete(p.key); }); }).then(function () {
              var row = document.querySelector('[data-entry="' + entryId + '"] .kept-photos');
              if (row) row.textContent = response.ok ? (list.length === 1 ? 'Photo sent' : 'Photos sent') : 'Photos not saved';
              if (!response.ok) {
                var box = status('outbox-sent');
                box.textContent += ' ' + (list.length === 1 ? 'A photo' : list.length + ' photos') + ' kept offline could not be added to its journal note.';
              }
            });
          });
        });
      }, Promise.resolve());
    }).then(function () { sendingPhotos = false; }, function () { sendingPhotos = false; });
  };
  var addEntry = function (change, photoCount) {
    var form = document.querySelector('form[action^="/app/projects/' + change.fields.projectId + '/entries"]');
    if (!form || document.querySelector('[data-entry="' + change.id + '"]')) return;
    var journal = document.getElementById('journal'), list = document.getElementById('entries');
    if (!list) {
      list = document.createElement('ul'); list.className = 'list'; list.id = 'entries';
      var empty = journal.querySelector('.empty-state, .empty'); if (empty) empty.replaceWith(list); else journal.appendChild(list);
    }
    var item = document.createElement('li'); item.className = 'card pending'; item.setAttribute('data-entry', change.id);
    var when = document.createElement('time'); when.className = 'muted';
    when.textContent = new Date(change.fields.createdAt).toLocaleDateString([], { dateStyle: 'long' }) + ' · kept on this device';
    var text = document.createElement('p'); text.className = 'prewrap'; text.textContent = change.fields.notes;
    item.appendChild(when); item.appendChild(text);
    if (photoCount) {
      var kept = document.createElement('p'); kept.className = 'muted kept-photos';
      kept.textContent = (photoCount === 1 ? '1 photo' : photoCount + ' photos') + ' kept on this device';
      item.appendChild(kept);
    }
    list.insertBefore(item, list.firstChild);
  };
  // "Bought" offline, on the shopping list: the line says so and waits.
  var markBought = function (change) {
    var f = change.fields, row = document.querySelector('#shopping .row[data-item="' + f.brand + ' ' + f.number + '"]');
    if (!row || row.querySelector('.bought-offline')) return;
    row.classList.add('pending');
    var said = document.createElement('div'); said.className = 'muted bought-offline';
    said.textContent = 'Bought ' + f.quantity + ' — kept on this device';
    row.querySelector('.grow').appendChild(said);
    Array.prototype.forEach.call(row.querySelectorAll('button'), function (b) { b.disabled = true; });
  };
  var titleOf = function (row) { var t = row.querySelector('.title'); return t ? t.textContent.replace(/\s+/g, ' ').trim() : ''; };
  // What is kept shows on the page as it will be (after a reload too): a quantity set offline,
  // plus what was bought after it.
  var showPending = function () {
    var kept = mine();
    kept.forEach(function (change) {
      if (change.type === 'thread') {
        if (change.fields.brand !== undefined) addThreadRow(change);
        var row = threadRow(change.id);
        if (row && change.fields.quantity !== undefined) { setQuantity(row, change.fields.quantity); row.classList.add('pending'); }
      } else if (change.type === 'step') {
        var stepped = threadRow(change.fields.thread);
        if (stepped) { setQuantity(stepped, Math.max(0, Number(stepped.querySelector('output.qty').textContent) + change.fields.delta)); stepped.classList.add('pending'); }
      } else if (change.type === 'journalEntry') addEntry(change);
      else if (change.type === 'purchase') markBought(change);
    });
    kept.filter(function (c) { return c.type === 'purchase'; }).forEach(function (buy) {
      Array.prototype.forEach.call(document.querySelectorAll('#threads .row'), function (row) {
        if (titleOf(row) !== buy.fields.brand + ' ' + buy.fields.number) return;
        var set = pending('thread', row.getAttribute('data-thread'));
        if (set && set.fields.quantity !== undefined && set.changedAt >= buy.changedAt) return;
        setQuantity(row, Number(row.querySelector('output.qty').textContent) + buy.fields.quantity);
        row.classList.add('pending');
      });
    });
    showKept();
  };
  var sending = false, sentCount = 0, notes = [];
  var describe = function (result) {
    var error = result.error || {};
    return error.fields ? Object.keys(error.fields).map(function (k) { return error.fields[k]; }).join('; ') : (error.error || 'refused');
  };
  // The server's answer: kept changes leave the device; where the server kept a later change
  // from another device, its value is shown and said.
  var settle = function (batch, answer) {
    var list = outbox(), stepsSettled = [];
    batch.forEach(function (sent) {
      var result = (answer.results || []).filter(function (r) { return r.id === sent.id; })[0];
      if (!result) return;
      var copy = (answer.changes || []).filter(function (c) { return c.id === sent.id; })[0];
      list = list.filter(function (c) { return !(c.user === sent.user && c.type === sent.type && c.id === sent.id && c.changedAt === sent.changedAt); });
      var row = sent.type === 'thread' && threadRow(sent.id);
      if (sent.type === 'purchase') {
        var line = document.querySelector('#shopping .row[data-item="' + sent.fields.brand + ' ' + sent.fields.number + '"] .bought-offline');
        if (line) line.textContent = result.status === 'applied' ? 'Bought ' + sent.fields.quantity + ' — added to your inventory' : 'Not saved';
      }
      if (row) row.classList.remove('pending');
      if (sent.type === 'step') stepsSettled.push(sent.fields.thread);
      if (result.status === 'applied') sentCount += 1;
      else if (result.status === 'stale' && copy && (copy.action === 'delete' || (copy.data && copy.data.deletedAt))) {
        // Deletes win: the record was deleted on another device, and this change is dropped with it.
        if (row) row.remove();
        notes.push('Deleted on another device: your change to ' + sent.label + ' wasn\u2019t kept.');
      } else if (result.status === 'stale') {
        var quantity = copy && copy.data ? copy.data.quantity : undefined;
        if (row && quantity !== undefined) setQuantity(row, quantity);
        notes.push(sent.label + ' was changed later on another device' + (quantity !== undefined ? ': it has ' + quantity + ' there, which is kept.' : '; that change is kept.'));
      } else notes.push(sent.label + ' was not saved: ' + describe(result) + '.');
    });
    saveOutbox(list);
    // A thread stepped: what the server counted, with the steps still kept on top.
    stepsSettled.forEach(function (thread) {
      var copies = (answer.changes || []).filter(function (c) { return c.id === thread && c.data; }), row = threadRow(thread);
      if (!row || !copies.length) return;
      setQuantity(row, withKeptSteps(thread, copies[copies.length - 1].data.quantity));
      if (!keptSteps(thread).length && !pending('thread', thread)) row.classList.remove('pending');
    });
    var box = status('outbox-sent');
    box.textContent = (sentCount ? 'Sent ' + (sentCount === 1 ? '1 change' : sentCount + ' changes') + ' made offline.' : 'Back online.') + (notes.length ? ' ' + notes.join(' ') : '');
    showKept();
  };
  var flush = function () {
    if (sending || otherAccount || navigator.onLine === false || !user) return;
    var batch = mine().slice(0, 200);
    if (!batch.length) { sendKeptPhotos(); return; }
    sending = true;
    var send = function (token, retry) {
      return fetchWithDeadline('/app/sync', {
        method: 'POST', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'Accept': 'application/json', 'X-CSRF-Token': token || '' },
        // The batch says whose it is: the server refuses it for any other account (409).
        body: JSON.stringify({ user: user, changes: batch.map(function (c) { return { type: c.type, id: c.id, fields: c.fields, changedAt: c.changedAt }; }) })
      }).then(function (response) {
        // A token from a page kept since the browser last ran: a fresh page has this browser's —
        // but only if that page is this account's. Another account signed in on this browser
        // since: the changes stay here for their own account's next sign-in, and nothing is sent.
        if (response.status === 403 && retry) {
          return fetch('/app/inventory', { credentials: 'same-origin' }).then(function (r) { return r.text(); }).then(function (html) {
            var found = /data-csrf="([^"]+)"/.exec(html), owner = /data-user="([^"]+)"/.exec(html);
            if (!owner || owner[1] !== user) { keptForOwner(); throw new Error('another account is signed in'); }
            return send(found ? found[1] : token, false);
          });
        }
        if (response.status === 409) { keptForOwner(); throw new Error('another account is signed in'); }
        if (!response.ok) throw new Error('not sent: ' + response.status);  // signed out, say: kept for the next sign-in
        return response.json().then(function (answer) { settle(batch, answer); });
      });
    };
    send(main.getAttribute('data-csrf'), true)
      .then(function () { sending = false; if (mine().length) flush(); else sendKeptPhotos(); })
      .catch(function () { sending = false; retrySoon(); });
  };
  // This page's account is no longer the one signed in on this browser: its changes wait here,
  // said so, until it signs in again (no retries meanwhile: they would go to the other account).
  var otherAccount = false;
  var keptForOwner = function () {
    otherAccount = true;
    var n = mine().length;
    status('outbox-kept').textContent = (n === 1 ? '1 change' : n + ' changes') + ' made on this page ' + (n === 1 ? 'was' : 'were')
      + ' not sent: another account has signed in on this browser since. ' + (n === 1 ? 'It stays' : 'They stay')
      + ' on this device and ' + (n === 1 ? 'is' : 'are') + ' sent when this account signs in again.';
  };
  // Signing out with changes not yet sent: asked first, as they stay on this device until this
  // account signs in again.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!user || !form.getAttribute || form.getAttribute('action') !== '/app/signout') return;
    var n = mine().length;
    if (n && !window.confirm((n === 1 ? '1 change' : n + ' changes') + ' made offline ' + (n === 1 ? 'hasn\u2019t' : 'haven\u2019t')
        + ' been sent yet. ' + (n === 1 ? 'It stays' : 'They stay') + ' on this device and ' + (n === 1 ? 'is' : 'are')
        + ' sent when you sign in again. Sign out anyway?')) event.preventDefault();
  }, true);
  // The server not answering says nothing to the browser's "online" event: try again now and then.
  var retryTimer = null;
  var retrySoon = function () {
    if (retryTimer || !mine().length) return;
    retryTimer = setTimeout(function () { retryTimer = null; flush(); }, 10000);
  };
  if (user) { showPending(); flush(); window.addEventListener('online', flush); }

  // The worker marks a page it answered from its copy (`data-kept-copy`): read as offline, and
  // not counted as seen now.
  if (navigator.onLine === false || document.documentElement.hasAttribute('data-kept-copy')) showOffline();
  else { try { localStorage.setItem(seenKey, String(Date.now())); } catch (e) {} }
  window.addEventListener('offline', showOffline);
  // A new thread, a journal note or a purchase is sent by the page with a deadline. With no
  // network, or when the request fails or hangs (weak signal, a captive portal, the server
  // restarting: the browser still says "online"), it is kept on the device and sent when the
  // server answers again. A purchase carries its id, so one that reached the server before
  // its answer was lost isn't counted twice.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!user || form.classList.contains('step') || !keptOffline(form)) return;
    // A button posting the form elsewhere ("Set aside" on a shopping line) is a plain post.
    if (event.submitter && event.submitter.hasAttribute('formaction')) return;
    event.preventDefault();
    var id = newId();
    if (navigator.onLine === false) { keepForm(form, id, false); return; }
    var multipart = (form.getAttribute('enctype') || '') === 'multipart/form-data';
    var body = multipart ? new FormData(form) : new URLSearchParams(new FormData(form));
    body.set('changeId', id);
    var button = form.querySelector('button[type=submit]');
    if (button) button.disabled = true;
    postWithDeadline(form.action, body).then(function (response) {
      if (response.redirected) { location.href = response.url; return; }
      return response.text().then(function (html) {
        if (response.url) history.replaceState(null, '', response.url);
        document.open(); document.write(html); document.close();
      });
    }, function () {
      if (button) button.disabled = false;
      keepForm(form, id, true);
    });
  }, true);
  var keepForm = function (form, givenId, unreachable) {
    var action = (form.getAttribute('action') || '').split('?')[0];
    var value = function (name) { var f = form.elements[name]; return f && f.value.trim() ? f.value.trim() : undefined; };
    var now = new Date().toISOString();
    if (/\/entries$/.test(action)) {
      var photos = form.elements.images, files = photos && photos.files ? Array.prototype.slice.call(photos.files) : [];
      if (!value('notes') && !files.length) { window.alert('Write a note or add a photo first.'); return; }
      if (files.length && !window.indexedDB) { window.alert('Photos need a connection in this browser: add them when you are back online.'); return; }
      var day = value('date'), projectId = action.split('/')[3];
      var entry = { projectId: projectId, notes: value('notes') || '', createdAt: day && day !== now.slice(0, 10) ? day + 'T12:00:00.000Z' : now };
      // The photos (already made smaller) wait in the browser's database until the entry is on
      // the server; then they are sent to it (`sendKeptPhotos`).
      keepPhotos(givenId, projectId, files).then(function () {
        keep('journalEntry', givenId, entry, 'The journal note' + (files.length ? ' and its ' + (files.length === 1 ? 'photo' : files.length + ' photos') : ''));
        addEntry({ id: givenId, fields: entry }, files.length);
        form.reset();
        if (unreachable) sayUnreachable();
      }, function () { window.alert('The photos could not be kept on this device: add them when you are back online.'); });
      return;
    }
    if (/\/shopping\/bought$/.test(action)) {
      var bought = { brand: value('brand'), number: value('number'), quantity: Math.floor(Number(value('quantity') || '0')), colorName: value('colorName') };
      if (bought.colorName === undefined) delete bought.colorName;
      if (!(bought.quantity >= 1)) { window.alert('Say how many skeins you bought.'); return; }
      var buy = { id: givenId, fields: bought };
      keep('purchase', buy.id, bought, bought.brand + ' ' + bought.number + ' (bought ' + bought.quantity + ')');
      markBought(buy);
      if (unreachable) sayUnreachable();
      return;
    }
    var quantity = Number(value('quantity') || '0');
    var thread = { brand: value('brand'), number: value('number'), colorName: value('colorName'), catalogColorName: value('catalogColorName'),
                   colorHex: value('colorHex'), fiberType: value('fiberType') || 'wool', quantity: Math.max(0, Math.floor(quantity) || 0),
                   weightOrLength: value('weightOrLength'), barcode: value('barcode'), notes: value('notes'), createdAt: now };
    Object.keys(thread).forEach(function (k) { if (thread[k] === undefined) delete thread[k]; });
    if (!thread.brand || !thread.number) { window.alert('A thread needs a brand and a number.'); return; }
    keep('thread', givenId, thread, thread.brand + ' ' + thread.number);
    if (unreachable) sayUnreachable();
    if (form.elements.addAnother && form.elements.addAnother.checked) {
      var brand = thread.brand;
      form.reset(); form.elements.brand.value = brand;
      status('outbox-kept').textContent = 'Kept ' + thread.brand + ' ' + thread.number + ' on this device. ' + status('outbox-kept').textContent;
      if (form.elements.number) form.elements.number.focus();
    } else location.href = '/app/inventory';
  };
  var sayUnreachable = function () {
    status('outbox-kept').textContent = 'The server didn\'t answer. ' + status('outbox-kept').textContent;
    retrySoon();
  };
  // The inventory comes a page of rows at a time (InventoryPage.pageSize). "Show more" adds the
  // next page's rows here without reloading; the address becomes the longer list's.
  document.addEventListener('click', function (event) {
    var more = event.target.closest && event.target.closest('#more-threads');
    if (!more || navigator.onLine === false) return;
    event.preventDefault();
    more.setAttribute('aria-busy', 'true');
    // A weak signal: the rows already here stay, and the link can be tapped again.
    var unanswered = function () {
      more.removeAttribute('aria-busy');
      status('more-status').textContent = 'The server didn\'t answer, so no more rows came. Tap “' + more.textContent.trim() + '” again when the signal is better.';
    };
    fetchWithDeadline(more.href, { credentials: 'same-origin' }).then(function (response) {
      if (!response.ok) { location.href = more.href; return null; }  // signed out, or the server's own page says why
      return response.text();
    }, function () { unanswered(); return null; }).then(function (html) {
      if (html === null) return;
      var said = document.getElementById('more-status');
      if (said) said.remove();
      var next = new DOMParser().parseFromString(html, 'text/html'), list = threadList();
      Array.prototype.forEach.call(next.querySelectorAll('#threads .row'), function (row) {
        if (!threadRow(row.getAttribute('data-thread'))) list.appendChild(document.importNode(row, true));
      });
      var after = next.getElementById('more'), here = document.getElementById('more');
      if (after) here.replaceWith(document.importNode(after, true)); else here.remove();
      history.replaceState(null, '', more.href);
    }).catch(function () { location.href = more.href; });
  });
  // A list cut short can't be searched by its rows alone: the page keeps every thread as JSON in
  // the pages' cache (refreshed on each visit once the worker runs the app; a 304 when nothing
  // changed), and searching offline reads it. Not on a first visit: that stays small.
  var INVENTORY_DATA = '/app/inventory.json';
  if (document.getElementById('more') && window.caches && navigator.serviceWorker && navigator.serviceWorker.controller && navigator.onLine !== false) {
    caches.open(PAGES).then(function (cache) { return cache.add(INVENTORY_DATA); }).catch(function () {});
  }
  var offlineCount = function (form, said) {
    var count = document.getElementById('offline-count');
    if (!count) {
      count = document.createElement('p');
      count.id = 'offline-count';
      count.setAttribute('role', 'status');
      form.parentNode.insertBefore(count, form.nextSibling);
    }
    count.textContent = said;
  };
  // Searching the inventory with no network: every kept thread (above) or the rows on the page.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (navigator.onLine !== false || form.getAttribute('role') !== 'search') return;
    var rows = document.querySelectorAll('#threads .row');
    if (!rows.length) return;
    event.preventDefault();
    var value = function (name) { return ((form.querySelector('[name=' + name + ']') || {}).value || '').trim(); };
    var q = value('q').toLowerCase(), brand = value('brand').toLowerCase(), fiber = value('fiberType');
    var filterRows = function () {
      var shown = 0;
      Array.prototype.forEach.call(document.querySelectorAll('#threads .row'), function (row) {
        var hit = !q || row.textContent.toLowerCase().indexOf(q) >= 0;
        row.style.display = hit ? '' : 'none';  // (a .row's display: flex would outweigh [hidden])
        if (hit) shown += 1;
      });
      offlineCount(form, q ? shown + ' of ' + rows.length + ' threads match “' + q + '” (offline)' : '');
    };
    if (!document.getElementById('more') || !window.caches) { filterRows(); return; }
    caches.match(INVENTORY_DATA, { cacheName: PAGES }).then(function (kept) { return kept ? kept.json() : null; }).then(function (data) {
      if (!data) { filterRows(); return; }
      var hits = data.threads.filter(function (t) {
        var words = [t.brand, t.number, t.brand + ' ' + t.number, t.colorName || '', t.fiberType].join(' ').toLowerCase();
        return (!q || words.indexOf(q) >= 0) && (!brand || t.brand.toLowerCase() === brand) && (!fiber || t.fiberType === fiber);
      });
      var list = threadList();
      list.textContent = '';
      hits.slice(0, 200).forEach(function (t) {
        var subtitle = [t.colorName, t.fiberType.charAt(0).toUpperCase() + t.fiberType.slice(1)].filter(Boolean).join(' · ');
        var row = buildThreadRow(t.id, t, subtitle, true), kept = pending('thread', t.id);
        if (kept && kept.fields.quantity !== undefined) { setQuantity(row, kept.fields.quantity); row.classList.add('pending'); }
        list.appendChild(row);
      });
      var more = document.getElementById('more'); if (more) more.hidden = true;
      offlineCount(form, hits.length + ' of ' + data.threads.length + ' threads match' + (q ? ' “' + q + '”' : '')
                         + (hits.length > 200 ? ', the first 200 shown' : '') + ' (offline)');
    }).catch(filterRows);
  }, true);
  // "Print" (shown only with a script to press it): the print stylesheet makes the list a paper one.
  Array.prototype.forEach.call(document.querySelectorAll('[data-print]'), function (b) { b.hidden = false; });
  document.addEventListener('click', function (event) {
    if (event.target.closest && event.target.closest('[data-print]')) window.print();
  });
  // Skeins bought on a shopping line: − and + set the form's quantity (at least 1, at most 999).
  Array.prototype.forEach.call(document.querySelectorAll('[data-bought-step]'), function (b) { b.hidden = false; });
  document.addEventListener('click', function (event) {
    var step = event.target.closest && event.target.closest('[data-bought-step]');
    if (!step || !step.form) return;
    var form = step.form, quantity = form.elements.quantity;
    var n = Math.max(1, Math.min(999, Number(quantity.value) + Number(step.getAttribute('data-bought-step'))));
    quantity.value = String(n);
    form.querySelector('output.qty').textContent = String(n);
    form.querySelector('[data-bought-step="-1"]').disabled = n === 1;
  });
  // Inline −/+ without a page reload; the form still posts normally without JavaScript.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    var confirmButton = form.querySelector('[data-confirm]');
    if (confirmButton && !window.confirm(confirmButton.getAttribute('data-confirm'))) { event.preventDefault(); return; }
    if (form.classList.contains('upload') && window.FormData && window.XMLHttpRequest) {
      // A large upload (a backup with its pictures) shows its progress; the answer replaces the page.
      event.preventDefault();
      var bar = form.querySelector('progress');
      var button = form.querySelector('button[type=submit]');
      if (bar) bar.hidden = false;
      if (button) { button.disabled = true; button.textContent = 'Uploading…'; }
      var xhr = new XMLHttpRequest();
      xhr.open('POST', form.action);
      xhr.upload.onprogress = function (e) { if (bar && e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total); };
      xhr.upload.onload = function () { if (button) button.textContent = 'Restoring…'; };
      xhr.onload = function () {
        if (xhr.responseURL) history.replaceState(null, '', xhr.responseURL);
        document.open(); document.write(xhr.responseText); document.close();
      };
      xhr.onerror = function () { form.submit(); };
      xhr.send(new FormData(form));
      return;
    }
    if (!form.classList.contains('step')) return;
    // The button pressed says which way; a browser that doesn't say posts the form itself.
    var delta = event.submitter && event.submitter.name === 'delta' ? Number(event.submitter.value) : 0;
    if (!delta) return;
    event.preventDefault();
    var row = form.closest('.row');
    var output = row.querySelector('output.qty');
    var thread = row.getAttribute('data-thread');
    // Each step has an id: one kept on the device after its request had no answer may still
    // reach the server with that request, and is counted once.
    var body = new URLSearchParams(new FormData(form)), stepId = newId();
    body.set('delta', String(delta));
    body.set('changeId', stepId);
    // With no network (or this thread's changes still waiting to be sent) the step is kept on the
    // device: as skeins added, like a purchase; on a thread not yet on the server, as its quantity.
    var local = function () {
      var quantity = Math.max(0, Number(output.textContent) + delta);
      var label = titleOf(row) || 'A thread';
      if (pending('thread', thread)) keep('thread', thread, { quantity: quantity }, label);
      else keep('step', stepId, { thread: thread, delta: delta }, label + (delta > 0 ? ' (one more)' : ' (one fewer)'));
      setQuantity(row, quantity);
      row.classList.add('pending');
      flush();
    };
    if (navigator.onLine === false || pending('thread', thread) || keptSteps(thread).length) { local(); return; }
    // A request that fails or hangs past the deadline (one bar of signal, the browser still
    // "online") keeps the step on the device too.
    fetchWithDeadline(form.action, {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Accept': 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString()
    }).then(function (response) {
      // The server answered but not with a quantity: the plain form post shows why.
      if (!response.ok) {
        var field = document.createElement('input'); field.type = 'hidden'; field.name = 'delta'; field.value = String(delta);
        form.appendChild(field); form.submit(); return;  // submit() sends no button's value
      }
      return response.json().then(function (data) {
        setQuantity(row, data.quantity);
        output.classList.remove('bump'); void output.offsetWidth; output.classList.add('bump');
      });
    }, local);  // no answer at all: kept on the device
  });
  // Find a thread in the catalog as you type: picking one fills brand, number, colour name
  // (unless one is typed already) and swatch, and remembers the catalog's name.
  var finder = document.querySelector('[data-catalog]');
  if (finder && window.fetch) {
    finder.hidden = false;
    var input = finder.querySelector('input[type=search]');
    var list = finder.querySelector('ul');
    var form = finder.closest('form');
    var asked = 0, timer = null;
    var set = function (name, value) { var f = form.elements[name]; if (f) f.value = value; };
    // The list says which query it answers, so what reads it (a person's screen reader, a
    // test) knows the results are the ones for what is typed, not an earlier keystroke's.
    var show = function (entries, query) {
      list.textContent = '';
      list.setAttribute('data-query', query || ''); list.setAttribute('aria-busy', 'false');
      entries.forEach(function (entry) {
        var item = document.createElement('li');
        item.className = 'row';
        item.setAttribute('role', 'option');
        var pick = document.createElement('button');
        pick.type = 'button';
        pick.className = 'catalog-pick';
        var swatch = document.createElement('span');
        swatch.className = 'swatch';
        swatch.style.background = entry.hex;
        swatch.setAttribute('role', 'img');
        swatch.setAttribute('aria-label', 'Colour ' + entry.hex);
        pick.appendChild(swatch);
        pick.appendChild(document.createTextNode([entry.brand, entry.number, entry.name].filter(Boolean).join(' ')));
        pick.addEventListener('click', function () {
          set('brand', entry.brand); set('number', entry.number); set('colorHex', entry.hex);
          set('catalogColorName', entry.name);
          if (form.elements.colorName && !form.elements.colorName.value) set('colorName', entry.name);
          if (form.elements.fiberType) set('fiberType', entry.fiberType);
          var line = document.getElementById('catalog-line'), lines = document.getElementById('f-line');
          if (line && lines) {
            lines.textContent = '';
            [entry.line].concat(entry.variants || []).forEach(function (name, i) {
              var option = document.createElement('option');
              option.value = i === 0 ? '' : name; option.textContent = name;
              lines.appendChild(option);
            });
            line.hidden = !(entry.variants && entry.variants.length);
            lines.onchange = function () { set('weightOrLength', lines.value); };
          }
          // A search still on its way must not bring the list back.
          clearTimeout(timer); asked++;
          list.textContent = ''; list.setAttribute('data-query', ''); input.value = '';
          var quantity = form.elements.quantity; if (quantity) quantity.focus();
        });
        item.appendChild(pick);
        list.appendChild(item);
      });
    };
    input.addEventListener('input', function () {
      clearTimeout(timer);
      var query = input.value.trim();
      if (!query) { show([], ''); return; }
      // Until the answer for what is typed now arrives, the list shown is an older one's.
      list.setAttribute('data-query', ''); list.setAttribute('aria-busy', 'true');
      timer = setTimeout(function () {
        var mine = ++asked;
        fetch('/catalog/search?limit=8&q=' + encodeURIComponent(query), { credentials: 'same-origin' })
          .then(function (r) { return r.ok ? r.json() : []; })
          .then(function (entries) { if (mine === asked) show(entries, query); })
          .catch(function () {});
      }, 120);
    });
  }
  // A phone's photo over 10 MB (a 48-megapixel camera's) is made smaller here before it is sent,
  // as the plan's client does: upright as it was taken (the EXIF orientation applied, the JPEG
  // made has none), at most 4,096 px on its longest side, quality lowered until it fits. One the
  // browser can't read (HEIC) goes as it is; the server makes it smaller then. A pattern's file
  // (PDF or picture) is kept whole.
  var maxPhotoBytes = 10 * 1024 * 1024, longestSide = 4096;
  var shrinkPhoto = function (file) {
    if (!file || file.size <= maxPhotoBytes || !/^image\//.test(file.type) || !window.createImageBitmap) return Promise.resolve(file);
    return createImageBitmap(file, { imageOrientation: 'from-image' }).then(function (bitmap) {
      var scale = Math.min(1, longestSide / Math.max(bitmap.width, bitmap.height));
      var canvas = document.createElement('canvas');
      canvas.width = Math.max(1, Math.round(bitmap.width * scale));
      canvas.height = Math.max(1, Math.round(bitmap.height * scale));
      canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      if (bitmap.close) bitmap.close();
      var encode = function (quality) {
        return new Promise(function (resolve) { canvas.toBlob(resolve, 'image/jpeg', quality); }).then(function (blob) {
          return blob && blob.size > maxPhotoBytes && quality > 0.5 ? encode(quality - 0.15) : blob;
        });
      };
      return encode(0.85).then(function (blob) {
        if (!blob || blob.size > maxPhotoBytes) return file;
        return new File([blob], file.name.replace(/\.[^.]*$/, '') + '.jpg', { type: 'image/jpeg', lastModified: file.lastModified });
      });
    }).catch(function () { return file; });
  };
  // The input's files made smaller where they need it; the form's buttons wait meanwhile.
  var shrinkInput = function (input) {
    var files = Array.prototype.slice.call(input.files || []);
    if (!window.DataTransfer || !files.some(function (f) { return f.size > maxPhotoBytes && /^image\//.test(f.type); })) return Promise.resolve();
    var buttons = input.form ? Array.prototype.slice.call(input.form.querySelectorAll('button[type=submit]')) : [];
    buttons.forEach(function (b) { b.disabled = true; });
    input.setAttribute('data-shrinking', '');
    return Promise.all(files.map(shrinkPhoto)).then(function (made) {
      var list = new DataTransfer();
      made.forEach(function (f) { list.items.add(f); });
      input.files = list.files;
    }).then(function () {
      input.removeAttribute('data-shrinking');
      buttons.forEach(function (b) { b.disabled = false; });
    });
  };
  document.addEventListener('change', function (event) {
    var input = event.target;
    if (!input || input.type !== 'file' || input.hasAttribute('data-scan-photo')) return;
    var accept = input.getAttribute('accept') || '';
    if (accept.indexOf('image/') < 0 || accept.indexOf('pdf') >= 0) return;
    shrinkInput(input);
  }, true);
  // Scan-to-add: a photo is sent as soon as it is taken. Where the browser can read barcodes
  // itself (BarcodeDetector) only the digits go; otherwise the photo does and the server reads it.
  var scanPhoto = document.querySelector('[data-scan-photo]');
  if (scanPhoto) {
    scanPhoto.addEventListener('change', function () {
      var form = scanPhoto.form, file = scanPhoto.files[0];
      if (!file) return;
      var send = function () { shrinkInput(scanPhoto).then(function () { form.submit(); }); };
      if (!('BarcodeDetector' in window) || !window.createImageBitmap) { send(); return; }
      BarcodeDetector.getSupportedFormats().then(function (formats) {
        var wanted = ['ean_13', 'upc_a', 'ean_8'].filter(function (f) { return formats.indexOf(f) >= 0; });
        if (!wanted.length) return [];
        return createImageBitmap(file).then(function (bitmap) { return new BarcodeDetector({ formats: wanted }).detect(bitmap); });
      }).then(function (found) {
        if (found.length) { form.elements.code.value = found[0].rawValue; scanPhoto.value = ''; }
        send();
      }).catch(send);
    });
  }
  // Zoom and pan by touch, mouse or keys, for a picture in a stage (the pattern viewer's page and
  // the journal's photo share it): a pinch, a double-tap or ctrl+wheel zooms about that point,
  // a drag pans; unzoomed, a sideways swipe goes to the previous or next one (`rel` links).
  var zoomPan = function (stage, picture, label, maxScale) {
    var view = { scale: 1, x: 0, y: 0 };
    var apply = function () {
      var img = picture();
      if (!img) return;
      var w = stage.clientWidth, h = img.offsetHeight;
      view.scale = Math.min(maxScale, Math.max(1, view.scale));
      view.x = Math.min(0, Math.max(w * (1 - view.scale), view.x));
      view.y = Math.min(0, Math.max(h * (1 - view.scale), view.y));
      img.style.transform = 'translate(' + view.x + 'px,' + view.y + 'px) scale(' + view.scale + ')';
      img.classList.toggle('zoomed', view.scale > 1.01);
      if (label) label.textContent = Math.round(view.scale * 100) + '%';
      stage.dataset.scale = view.scale.toFixed(3);
    };
    // Zoom to `scale` keeping the point (cx, cy) of the stage where it is.
    var zoomAt = function (scale, cx, cy) {
      scale = Math.min(maxScale, Math.max(1, scale));
      var px = (cx - view.x) / view.scale, py = (cy - view.y) / view.scale;
      view.scale = scale; view.x = cx - px * scale; view.y = cy - py * scale;
      apply();
    };
    var centre = function () { return [stage.clientWidth / 2, (picture() ? picture().offsetHeight : stage.clientHeight) / 2]; };
    var go = function (rel) { var link = document.querySelector('a[rel=' + rel + ']'); if (link) link.click(); };
    var pointers = {}, start = null, lastTap = 0, moved = false, swipe = null;
    var local = function (p) { var r = stage.getBoundingClientRect(); return [p.x - r.left, p.y - r.top]; };
    var begin = function () {
      var ids = Object.keys(pointers);
      if (ids.length >= 2) {
        var a = pointers[ids[0]], b = pointers[ids[1]];
        start = { dist: Math.hypot(a.x - b.x, a.y - b.y) || 1, mid: local({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }), scale: view.scale, x: view.x, y: view.y };
        swipe = null;
      } else if (ids.length === 1) {
        var p = pointers[ids[0]];
        start = { px: p.x, py: p.y, x: view.x, y: view.y };
      } else start = null;
    };
    stage.addEventListener('pointerdown', function (e) {
      if (!picture()) return;
      stage.setPointerCapture(e.pointerId);
      pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      moved = false;
      swipe = Object.keys(pointers).length === 1 && view.scale <= 1.01 ? { x: e.clientX, y: e.clientY } : null;
      begin();
    });
    stage.addEventListener('pointermove', function (e) {
      if (!pointers[e.pointerId] || !start) return;
      pointers[e.pointerId] = { x: e.clientX, y: e.clientY };
      var ids = Object.keys(pointers);
      if (ids.length >= 2 && start.dist) {
        var a = pointers[ids[0]], b = pointers[ids[1]];
        var mid = local({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 });
        var scale = Math.min(maxScale, Math.max(1, start.scale * Math.hypot(a.x - b.x, a.y - b.y) / start.dist));
        var px = (start.mid[0] - start.x) / start.scale, py = (start.mid[1] - start.y) / start.scale;
        view.scale = scale; view.x = mid[0] - px * scale; view.y = mid[1] - py * scale;
        moved = true;
        apply();
      } else if (ids.length === 1 && start.px !== undefined) {
        var dx = e.clientX - start.px, dy = e.clientY - start.py;
        if (Math.abs(dx) + Math.abs(dy) > 4) moved = true;
        view.x = start.x + dx; view.y = start.y + dy;
        apply();
      }
    });
    var end = function (e) {
      if (!pointers[e.pointerId]) return;
      var single = Object.keys(pointers).length === 1;
      delete pointers[e.pointerId];
      if (single && swipe && e.type === 'pointerup') {
        var sx = e.clientX - swipe.x, sy = e.clientY - swipe.y;
        if (Math.abs(sx) > 60 && Math.abs(sx) > 2 * Math.abs(sy)) { swipe = null; go(sx < 0 ? 'next' : 'prev'); return; }
      }
      if (single && !moved) {
        var now = Date.now(), c = local({ x: e.clientX, y: e.clientY });
        if (now - lastTap < 350) { zoomAt(view.scale > 1.01 ? 1 : 2.5, c[0], c[1]); lastTap = 0; } else lastTap = now;
      }
      begin();
    };
    stage.addEventListener('pointerup', end);
    stage.addEventListener('pointercancel', end);
    stage.addEventListener('dblclick', function (e) { e.preventDefault(); });
    stage.addEventListener('wheel', function (e) {
      if (!e.ctrlKey || !picture()) return;
      e.preventDefault();
      var c = local({ x: e.clientX, y: e.clientY });
      zoomAt(view.scale * (e.deltaY < 0 ? 1.1 : 1 / 1.1), c[0], c[1]);
    }, { passive: false });
    document.addEventListener('keydown', function (e) {
      if (e.target.closest && e.target.closest('input, textarea, select')) return;
      if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') { go(e.key === 'ArrowLeft' ? 'prev' : 'next'); return; }
      if (e.key === '+' || e.key === '=') { var c = centre(); zoomAt(view.scale * 1.5, c[0], c[1]); }
      if (e.key === '-') { var d = centre(); zoomAt(view.scale / 1.5, d[0], d[1]); }
    });
    window.addEventListener('resize', apply);
    return { apply: apply, zoomAt: zoomAt, centre: centre, fit: function () { view = { scale: 1, x: 0, y: 0 }; apply(); }, view: function () { return view; } };
  };
  // The pattern viewer: zoom with the buttons too; the page shown is remembered on the server
  // (another device opens there); while a PDF's pages are drawn, the progress and the pages
  // fill in as they are ready.
  var viewer = document.getElementById('pattern-viewer');
  if (viewer) {
    var stage = document.getElementById('pattern-stage');
    var page = function () { return document.getElementById('pattern-page'); };
    var zoom = zoomPan(stage, page, document.getElementById('pattern-zoom'), 6);
    var apply = zoom.apply;
    viewer.querySelectorAll('[data-zoom]').forEach(function (button) {
      button.addEventListener('click', function () {
        var c = zoom.centre(), kind = button.getAttribute('data-zoom');
        if (kind === 'fit') zoom.fit();
        else zoom.zoomAt(kind === 'in' ? zoom.view().scale * 1.5 : zoom.view().scale / 1.5, c[0], c[1]);
      });
    });
    var current = viewer.querySelector('.pattern-thumbs [aria-current=page]');
    if (current && current.scrollIntoView) current.scrollIntoView({ block: 'nearest', inline: 'center' });
    // Where the reader is, for the next device.
    var remember = document.querySelector('form[action$="/page"]');
    if (remember) {
      fetch(remember.action, { method: 'POST', body: new FormData(remember), headers: { Accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (r) { if (r.ok) viewer.dataset.saved = viewer.dataset.page; })
        .catch(function () {});
    }
    // Progress while the pages are drawn.
    var progress = document.getElementById('pattern-progress');
    if (progress && !progress.hidden) {
      var shown = Number(viewer.dataset.page), thumbBase = viewer.dataset.thumbBase;
      var poll = function () {
        fetch(progress.dataset.statusUrl, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
          .then(function (r) { return r.json(); })
          .then(function (pages) {
            document.getElementById('pattern-progress-bar').value = pages.rendered;
            document.getElementById('pattern-progress-text').textContent = pages.status === 'failed'
              ? 'The pages could not be drawn: ' + (pages.message || '')
              : 'Drawing pages: ' + pages.rendered + ' of ' + pages.pageCount + ' ready';
            viewer.dataset.rendered = pages.rendered;
            document.querySelectorAll('.thumb-wait[data-thumb]').forEach(function (wait) {
              var n = Number(wait.dataset.thumb);
              if (n > pages.rendered) return;
              var img = document.createElement('img');
              img.src = thumbBase + n; img.alt = ''; img.loading = 'lazy';
              wait.replaceWith(img);
            });
            var waiting = document.getElementById('pattern-page-wait');
            if (waiting && shown <= pages.rendered) {
              var img = document.createElement('img');
              img.id = 'pattern-page'; img.src = viewer.dataset.pageUrl; img.alt = 'Page ' + shown; img.draggable = false;
              img.addEventListener('load', apply);
              waiting.replaceWith(img);
            }
            if (pages.status === 'rendering') setTimeout(poll, 1000);
            else if (pages.status === 'ready') progress.hidden = true;
          })
          .catch(function () { setTimeout(poll, 3000); });
      };
      setTimeout(poll, 500);
    }
    if (page()) page().addEventListener('load', apply);
    apply();
  }
  // A tablet's split view (Layout.Split): the list beside an item scrolled to that item.
  var splitList = document.querySelector('.split-list');
  var splitCurrent = splitList && splitList.querySelector('.row.current');
  if (splitCurrent && splitList.clientHeight > 0) splitList.scrollTop = splitCurrent.offsetTop - splitList.clientHeight / 2 + splitCurrent.offsetHeight / 2;
  // A canvas's colours (CanvasPalettePage): "Show" on a colour's row dims the rest of the photo
  // from the palette's map (one character a cell, the colour's symbol or '.' for bare canvas);
  // "Tap a bare spot" reads the photo again with the tapped pixel as the canvas's white.
  var palette = document.getElementById('palette-photo');
  if (palette && palette.dataset.map) {
    var paletteCanvas = palette.querySelector('canvas');
    var mapWidth = +palette.dataset.mapWidth, mapHeight = +palette.dataset.mapHeight, cells = palette.dataset.map;
    paletteCanvas.width = mapWidth; paletteCanvas.height = mapHeight;
    var showColour = function (row) {
      var ctx = paletteCanvas.getContext('2d');
      ctx.clearRect(0, 0, mapWidth, mapHeight);
      Array.prototype.forEach.call(document.querySelectorAll('.palette-row'), function (r) {
        r.classList.toggle('showing', r === row);
        var b = r.querySelector('.palette-show'); if (b) b.setAttribute('aria-pressed', r === row ? 'true' : 'false');
      });
      if (!row) { delete palette.dataset.showing; return; }
      var symbol = row.dataset.symbol, lit = 0;
      ctx.fillStyle = 'rgba(20, 14, 12, 0.78)';
      for (var i = 0; i < cells.length; i++) {
        if (cells[i] === symbol) { lit++; continue; }
        ctx.fillRect(i % mapWidth, Math.floor(i / mapWidth), 1, 1);
      }
      palette.dataset.showing = row.dataset.colour;
      palette.dataset.lit = String(lit);
      var box = palette.getBoundingClientRect();
      if (box.bottom < 0 || box.top > window.innerHeight) palette.scrollIntoView({ block: 'start' });
    };
    Array.prototype.forEach.call(document.querySelectorAll('.palette-show'), function (button) {
      button.hidden = false;
      button.addEventListener('click', function () {
        var row = button.closest('.palette-row');
        showColour(row.classList.contains('showing') ? null : row);
      });
    });
  }
  var spotButton = document.getElementById('palette-spot');
  if (palette && spotButton && palette.dataset.photoWidth) {
    var spotImage = document.getElementById('palette-image'), spotHelp = document.getElementById('palette-spot-help');
    spotButton.hidden = false;
    spotButton.addEventListener('click', function () {
      var on = !palette.classList.contains('spotting');
      palette.classList.toggle('spotting', on);
      spotButton.setAttribute('aria-pressed', on ? 'true' : 'false');
      spotHelp.hidden = !on;
    });
    spotImage.addEventListener('click', function (event) {
      if (!palette.classList.contains('spotting')) return;
      var box = spotImage.getBoundingClientRect();
      var x = Math.round((event.clientX - box.left) / box.width * +palette.dataset.photoWidth);
      var y = Math.round((event.clientY - box.top) / box.height * +palette.dataset.photoHeight);
      var url = new URL(window.location.href);
      url.searchParams.set('spot', Math.max(0, x) + ',' + Math.max(0, y));
      url.searchParams.delete('flash'); url.searchParams.delete('fs');
      window.location.href = url.pathname + url.search;
    });
  }
  // The photo viewer: the pattern viewer's zoom and pan, and a swipe to the next photo.
  var photoStage = document.getElementById('photo-stage');
  if (photoStage) {
    var photo = function () { return document.getElementById('photo'); };
    var photoZoom = zoomPan(photoStage, photo, null, 4);
    if (photo().complete) photoZoom.apply(); else photo().addEventListener('load', photoZoom.apply);
  }
})();
