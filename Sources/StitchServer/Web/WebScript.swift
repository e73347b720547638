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
