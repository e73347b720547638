/// Small vanilla JavaScript that only enhances: every form works without it.
enum WebScript {
    static let source = #"""
    (function () {
      'use strict';
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
        var show = function (entries) {
          list.textContent = '';
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
            pick.appendChild(document.createTextNode(entry.brand + ' ' + entry.number + ' ' + entry.name));
            pick.addEventListener('click', function () {
              set('brand', entry.brand); set('number', entry.number); set('colorHex', entry.hex);
              set('catalogColorName', entry.name);
              if (form.elements.colorName && !form.elements.colorName.value) set('colorName', entry.name);
              if (form.elements.fiberType) set('fiberType', entry.fiberType);
              // A search still on its way must not bring the list back.
              clearTimeout(timer); asked++;
              list.textContent = ''; input.value = '';
              var quantity = form.elements.quantity; if (quantity) quantity.focus();
            });
            item.appendChild(pick);
            list.appendChild(item);
          });
        };
        input.addEventListener('input', function () {
          clearTimeout(timer);
          var query = input.value.trim();
          if (!query) { show([]); return; }
          timer = setTimeout(function () {
            var mine = ++asked;
            fetch('/catalog/search?limit=8&q=' + encodeURIComponent(query), { credentials: 'same-origin' })
              .then(function (r) { return r.ok ? r.json() : []; })
              .then(function (entries) { if (mine === asked) show(entries); })
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
      // The photo viewer: double-tap (or double-click) zooms to 2× and back.
      var photo = document.getElementById('photo');
      if (photo) {
        var lastTap = 0;
        var toggle = function () { photo.classList.toggle('zoomed'); };
        photo.addEventListener('dblclick', toggle);
        photo.addEventListener('touchend', function (e) {
          var now = Date.now();
          if (now - lastTap < 300) { e.preventDefault(); toggle(); }
          lastTap = now;
        });
        document.addEventListener('keydown', function (e) {
          var link = e.key === 'ArrowLeft' ? document.querySelector('a[rel=prev]') : e.key === 'ArrowRight' ? document.querySelector('a[rel=next]') : null;
          if (link) link.click();
        });
      }
    })();
    """#
}
