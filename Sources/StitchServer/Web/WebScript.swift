/// Small vanilla JavaScript that only enhances: every form works without it.
enum WebScript {
    static let source = #"""
    (function () {
      'use strict';
      // Offline: the worker keeps the inventory, stash, projects and shopping list as last seen.
      // Each page remembers when it was seen online; read offline, it says "as of" then. Signing in
      // or out forgets every kept page (a shared phone keeps nothing of the account).
      var PAGES = 'stitch-pages-v1', seenKey = 'stitch-seen:' + location.pathname + location.search;
      if (/^\/app\/(signin|signup)/.test(location.pathname)) {
        if (window.caches) caches.delete(PAGES);
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
        note.textContent = (seen ? 'Offline — as of ' + new Date(Number(seen)).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' })
                                 : 'Offline — as last seen') + '. Reading only: changes wait for a connection.';
        // Changes are not kept on the device yet: every button that would send one waits for the network.
        Array.prototype.forEach.call(document.querySelectorAll('form[method=post] button'), function (b) { b.disabled = true; b.setAttribute('data-offline-disabled', ''); });
        window.addEventListener('online', function () {
          Array.prototype.forEach.call(document.querySelectorAll('[data-offline-disabled]'), function (b) { b.disabled = false; b.removeAttribute('data-offline-disabled'); });
          var shown = document.getElementById('offline-note');
          if (shown) shown.remove();
        }, { once: true });
        if (seen) note.setAttribute('data-as-of', new Date(Number(seen)).toISOString());
        main.insertBefore(note, main.firstChild);
      }
      if (navigator.onLine === false) showOffline();
      else { try { localStorage.setItem(seenKey, String(Date.now())); } catch (e) {} }
      window.addEventListener('offline', showOffline);
      // Searching the inventory with no network: the rows of the page kept offline are filtered here.
      document.addEventListener('submit', function (event) {
        var form = event.target;
        if (navigator.onLine !== false || form.getAttribute('role') !== 'search') return;
        var rows = document.querySelectorAll('#threads .row');
        if (!rows.length) return;
        event.preventDefault();
        var q = ((form.querySelector('[name=q]') || {}).value || '').trim().toLowerCase();
        var shown = 0;
        Array.prototype.forEach.call(rows, function (row) {
          var hit = !q || row.textContent.toLowerCase().indexOf(q) >= 0;
          row.style.display = hit ? '' : 'none';  // (a .row's display: flex would outweigh [hidden])
          if (hit) shown += 1;
        });
        var count = document.getElementById('offline-count');
        if (!count) {
          count = document.createElement('p');
          count.id = 'offline-count';
          count.setAttribute('role', 'status');
          form.parentNode.insertBefore(count, form.nextSibling);
        }
        count.textContent = q ? shown + ' of ' + rows.length + ' threads match “' + q + '” (offline)' : '';
      }, true);
      // "Print" (shown only with a script to press it): the print stylesheet makes the list a paper one.
      Array.prototype.forEach.call(document.querySelectorAll('[data-print]'), function (b) { b.hidden = false; });
      document.addEventListener('click', function (event) {
        if (event.target.closest && event.target.closest('[data-print]')) window.print();
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
        event.preventDefault();
        var row = form.closest('.row');
        var output = row.querySelector('output.qty');
        fetch(form.action, {
          method: 'POST', credentials: 'same-origin',
          headers: { 'Accept': 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(new FormData(form)).toString()
        }).then(function (response) {
          if (!response.ok) throw new Error('step failed');
          return response.json();
        }).then(function (data) {
          output.textContent = String(data.quantity);
          output.classList.remove('bump'); void output.offsetWidth; output.classList.add('bump');
          var minus = row.querySelector('form.step input[name=delta][value="-1"]');
          if (minus) minus.form.querySelector('button').disabled = data.quantity === 0;
        }).catch(function () { form.submit(); });
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
      // Scan-to-add: a photo is sent as soon as it is taken. Where the browser can read barcodes
      // itself (BarcodeDetector) only the digits go; otherwise the photo does and the server reads it.
      var scanPhoto = document.querySelector('[data-scan-photo]');
      if (scanPhoto) {
        scanPhoto.addEventListener('change', function () {
          var form = scanPhoto.form, file = scanPhoto.files[0];
          if (!file) return;
          var send = function () { form.submit(); };
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
      // The photo viewer: the pattern viewer's zoom and pan, and a swipe to the next photo.
      var photoStage = document.getElementById('photo-stage');
      if (photoStage) {
        var photo = function () { return document.getElementById('photo'); };
        var photoZoom = zoomPan(photoStage, photo, null, 4);
        if (photo().complete) photoZoom.apply(); else photo().addEventListener('load', photoZoom.apply);
      }
    })();
    """#
}
