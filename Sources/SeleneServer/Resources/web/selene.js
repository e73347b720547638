// The web app's script (served as /app/static/selene.<hash>.js). Everything works without it; it
// adds the streamed chat answer, voice input and delete confirmations.
(function () {
  'use strict';
  // The sign-in page (where signing out, or a session the server ended, leads): the worker's
  // copies of notes, threads, tasks and the briefing go, so the next person on this device reads
  // none of them, even with Selene unreachable. The server's Clear-Site-Data takes the pictures.
  if (/^\/app\/(signin|setup)/.test(location.pathname)) {
    if (window.caches) caches.keys().then(function (names) { names.forEach(function (n) { if (!/-shell-/.test(n)) caches.delete(n); }); });
    if (navigator.serviceWorker && navigator.serviceWorker.controller) navigator.serviceWorker.controller.postMessage('forget-pages');
  }
  // Signing out with notes still kept in this browser: they are the person's words, so asked
  // first; signed out, they are deleted from this browser with everything else.
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form.getAttribute || form.getAttribute('action') !== '/app/signout') return;
    var kept = []; try { kept = JSON.parse(localStorage.getItem('selene-outbox') || '[]'); } catch (e) {}
    if (kept.length && !window.confirm(kept.length + (kept.length === 1 ? ' note' : ' notes') + ' written while Selene couldn\u2019t be reached ' + (kept.length === 1 ? 'hasn\u2019t' : 'haven\u2019t') + ' been saved yet. Signing out deletes ' + (kept.length === 1 ? 'it' : 'them') + ' from this browser. Sign out anyway?')) { event.preventDefault(); return; }
    try { localStorage.removeItem('selene-outbox'); } catch (e) {}
  }, true);
  document.addEventListener('submit', function (event) {
    var button = event.submitter || event.target.querySelector('[data-confirm]');
    if (button && button.hasAttribute && button.hasAttribute('data-confirm') && !window.confirm(button.getAttribute('data-confirm'))) { event.preventDefault(); }
  });
  // The composer grows with its text; the page keeps room for it, and for the keyboard.
  var composer = document.querySelector('form.composer');
  if (composer) {
    document.body.classList.add('has-composer');
    var grow = composer.querySelector('textarea');
    var measure = function () { document.documentElement.style.setProperty('--composer-height', composer.offsetHeight + 'px'); };
    var fit = function () { grow.style.height = 'auto'; grow.style.height = Math.min(grow.scrollHeight + 2, window.innerHeight * 0.3) + 'px'; measure(); };
    grow.addEventListener('input', fit);
    fit();
    if (window.visualViewport) {
      var keyboard = function () {
        var covered = Math.max(0, window.innerHeight - visualViewport.height - visualViewport.offsetTop);
        document.documentElement.style.setProperty('--keyboard', covered + 'px');
        document.body.classList.toggle('keyboard-up', covered > 80);
      };
      visualViewport.addEventListener('resize', keyboard);
      visualViewport.addEventListener('scroll', keyboard);
    }
    // Wide screens show the conversations beside; a phone folds them into one line.
    var list = document.querySelector('details[data-open-wide]');
    if (list) {
      // Opened by hand, it stays open from page to page (this tab).
      if (window.matchMedia('(min-width: 768px)').matches || sessionStorage.getItem('selene-sessions-open') === 'true') list.open = true;
      list.addEventListener('toggle', function () { try { sessionStorage.setItem('selene-sessions-open', String(list.open)); } catch (e) {} });
    }
  }
  // The newest text stays in view above the composer while the answer is written (unless
  // the person scrolled up to read something else).
  var following = false;
  ['wheel', 'touchmove'].forEach(function (kind) { window.addEventListener(kind, function () { following = false; }, { passive: true }); });
  function keepInView(element) {
    if (!following) return;
    var room = (composer ? composer.getBoundingClientRect().top : window.innerHeight) - 8;
    var box = element.getBoundingClientRect();
    if (box.bottom > room || box.bottom < 0) element.scrollIntoView({ block: 'end' });
  }
  // Times written by the server in UTC (Layout.moment), shown in the reader's own zone: a chat
  // message's hour and minute, a conversation's day ("Today", "Yesterday" when recent), a
  // ledger entry's day and time.
  function localTimes(root) {
    Array.prototype.forEach.call((root || document).querySelectorAll('time[data-local]'), function (el) {
      var at = new Date(el.getAttribute('datetime'));
      if (isNaN(at)) return;
      if (el.getAttribute('data-local') === 'time') {
        el.textContent = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      } else if (el.getAttribute('data-local') === 'full') {
        el.textContent = at.toLocaleString([], { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
      } else {
        var day = function (d) { return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime(); };
        var days = Math.round((day(new Date()) - day(at)) / 86400000);
        el.textContent = days === 0 ? 'Today' : days === 1 ? 'Yesterday'
          : at.toLocaleDateString([], { day: 'numeric', month: 'short', year: 'numeric' });
      }
      el.setAttribute('title', at.toLocaleString());
    });
  }
  localTimes(document);
  // The answer streamed as it is written: the form posts to its stream URL and the
  // server-sent events (progress, delta, done, unavailable, error) update the page.
  var form = document.querySelector('form[data-stream]');
  if (form && window.fetch && window.TextDecoder && window.ReadableStream) {
    var progress = document.getElementById('progress');
    var conversation = document.getElementById('conversation');
    form.addEventListener('submit', function (event) {
      var box = form.querySelector('textarea');
      if (!box.value.trim()) return;
      event.preventDefault();
      var data = new URLSearchParams(new FormData(form));
      var question = document.createElement('li'); question.className = 'message user';
      var who = document.createElement('span'); who.className = 'who'; who.textContent = 'You ';
      var asked = document.createElement('time'); asked.className = 'when'; asked.setAttribute('data-local', 'time');
      asked.setAttribute('datetime', new Date().toISOString()); who.appendChild(asked);
      var q = document.createElement('div'); q.className = 'answer'; q.textContent = box.value;
      question.appendChild(who); question.appendChild(q); conversation.appendChild(question); localTimes(question);
      var answer = document.createElement('li'); answer.className = 'message assistant'; answer.setAttribute('aria-live', 'polite');
      var who2 = document.createElement('span'); who2.className = 'who'; who2.textContent = 'Selene';
      var text = document.createElement('div'); text.className = 'answer';
      answer.appendChild(who2); answer.appendChild(text); conversation.appendChild(answer);
      var sent = box.value; box.value = '';
      box.dispatchEvent(new Event('input'));
      following = true;
      keepInView(answer);
      form.querySelector('button[type=submit]').disabled = true;
      fetch(form.getAttribute('data-stream'), { method: 'POST', body: data, credentials: 'same-origin',
        headers: { 'Accept': 'text/event-stream', 'Content-Type': 'application/x-www-form-urlencoded' } })
      .then(function (response) {
        if (!response.ok || !response.body) throw new Error('HTTP ' + response.status);
        var reader = response.body.getReader(), decoder = new TextDecoder(), buffer = '';
        function handle(name, payload) {
          if (name === 'progress') { progress.textContent = payload; }
          else if (name === 'delta') { progress.textContent = 'Writing…'; text.textContent += JSON.parse(payload).text; keepInView(answer); }
          else if (name === 'done' || name === 'unavailable') {
            progress.textContent = ''; var done = JSON.parse(payload); answer.outerHTML = done.html;
            var list = document.getElementById('sessions'); if (list && done.sessions) list.innerHTML = done.sessions;
            if (done.notice && !document.getElementById('hosted-waiting')) conversation.insertAdjacentHTML('beforebegin', done.notice);
            localTimes(conversation); if (list) localTimes(list);
            var heading = document.getElementById('conversation-title'); if (heading && done.title) heading.textContent = done.title;
            if (conversation.lastElementChild) keepInView(conversation.lastElementChild);
          }
          else if (name === 'error') { progress.textContent = ''; box.value = sent; answer.remove(); question.remove();
            var p = document.createElement('p'); p.className = 'flash error'; p.textContent = JSON.parse(payload).message; form.prepend(p); }
        }
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) return;
            buffer += decoder.decode(chunk.value, { stream: true });
            var parts = buffer.split('\n\n'); buffer = parts.pop();
            parts.forEach(function (part) {
              var name = 'message', lines = [];
              part.split('\n').forEach(function (line) {
                if (line.indexOf('event: ') === 0) name = line.slice(7);
                else if (line.indexOf('data: ') === 0) lines.push(line.slice(6));
              });
              handle(name, lines.join('\n'));
            });
            return pump();
          });
        }
        return pump();
      })
      .catch(function () { box.value = sent; form.submit(); })
      .then(function () { form.querySelector('button[type=submit]').disabled = false; });
    });
  }
  // Voice input, off until chosen (More → Voice input). "server": the audio is recorded here
  // and sent to this server's own speech-to-text; "browser": the browser's recognition,
  // which may send the audio to its vendor. Typing always works.
  var Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
  Array.prototype.forEach.call(document.querySelectorAll('.mic'), function (mic) {
    var mode = mic.getAttribute('data-voice');
    var box = document.getElementById(mic.getAttribute('data-for'));
    function add(words) { if (words) { box.value = (box.value ? box.value + ' ' : '') + words; } box.focus(); }
    function say(message) {
      var p = document.createElement('p'); p.className = 'flash error'; p.setAttribute('role', 'alert'); p.textContent = message;
      mic.closest('form').prepend(p);
    }
    if (mode === 'browser' && Recognition) {
      mic.hidden = false;
      mic.addEventListener('click', function () {
        var recognition = new Recognition();
        recognition.lang = document.documentElement.lang || 'en';
        recognition.interimResults = false;
        mic.classList.add('listening');
        recognition.onresult = function (e) { add(e.results[0][0].transcript); };
        recognition.onend = function () { mic.classList.remove('listening'); };
        recognition.start();
      });
    } else if (mode === 'server' && window.MediaRecorder && navigator.mediaDevices && navigator.mediaDevices.getUserMedia) {
      mic.hidden = false;
      var recorder = null, label = mic.lastChild;
      mic.addEventListener('click', function () {
        if (recorder) { recorder.stop(); return; }
        navigator.mediaDevices.getUserMedia({ audio: true }).then(function (stream) {
          var chunks = [];
          recorder = new MediaRecorder(stream);
          // In quarter-second pieces: what has been recorded so far is on the button (data-recorded, bytes).
          recorder.ondataavailable = function (e) {
            if (e.data.size) { chunks.push(e.data); mic.setAttribute('data-recorded', String(chunks.reduce(function (n, c) { return n + c.size; }, 0))); }
          };
          recorder.onstop = function () {
            stream.getTracks().forEach(function (t) { t.stop(); });
            recorder = null; mic.classList.remove('listening'); label.textContent = 'Speak'; mic.disabled = true;
            var audio = new Blob(chunks, { type: (chunks[0] && chunks[0].type) || 'audio/webm' });
            var csrf = mic.closest('form').querySelector('input[name=_csrf]').value;
            fetch(mic.getAttribute('data-transcribe'), { method: 'POST', body: audio, credentials: 'same-origin',
              headers: { 'Content-Type': audio.type.split(';')[0], 'X-CSRF-Token': csrf } })
            .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status)); return j; }); })
            .then(function (j) { add(j.text); })
            .catch(function (e) { say(e.message); })
            .then(function () { mic.disabled = false; });
          };
          mic.setAttribute('data-recorded', '0');
          recorder.start(250);
          mic.classList.add('listening'); label.textContent = 'Stop';
        }).catch(function () { say('The microphone is not available to this page.'); });
      });
    }
  });
  // The installable app: a service worker for the shell, offline reading and notifications.
  if ('serviceWorker' in navigator) {
    navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }).catch(function () {});
  }
  var pushOn = document.getElementById('web-push-on'), pushState = document.getElementById('web-push-state');
  if (pushOn && 'serviceWorker' in navigator && 'PushManager' in window && window.Notification) {
    pushOn.hidden = false;
    pushState.textContent = Notification.permission === 'denied'
      ? 'Notifications are blocked for this site in the browser settings.'
      : 'Get "Your morning briefing is ready" and new threads here, from your own server.';
    function keyBytes(text) {
      var s = text.replace(/-/g, '+').replace(/_/g, '/'); while (s.length % 4) s += '=';
      var raw = atob(s), out = new Uint8Array(raw.length); for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i); return out;
    }
    pushOn.addEventListener('click', function () {
      pushOn.disabled = true;
      Notification.requestPermission().then(function (permission) {
        if (permission !== 'granted') throw new Error('Notifications were not allowed.');
        return Promise.all([navigator.serviceWorker.ready, fetch(pushOn.getAttribute('data-key'), { credentials: 'same-origin' }).then(function (r) { return r.json(); })]);
      }).then(function (both) {
        return both[0].pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(both[1].publicKey) });
      }).then(function (subscription) {
        return fetch(pushOn.getAttribute('data-subscribe'), { method: 'POST', credentials: 'same-origin', body: JSON.stringify(subscription.toJSON()),
          headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': pushOn.getAttribute('data-csrf') } });
      }).then(function (r) {
        if (!r.ok) return r.json().then(function (j) { throw new Error(j.error || ('HTTP ' + r.status)); });
        location.href = r.headers.get('Selene-Next') || location.pathname;
      }).catch(function (e) { pushState.textContent = e.message; pushOn.disabled = false; });
    });
  }
  // Capture away from home: a phone that believes it is online often can't reach Selene (or
  // reaches it slowly). Every capture is sent by the page with a deadline; when it fails or
  // takes too long, the note is kept in this browser, said so, and sent again until Selene
  // answers. Each capture carries an id of its own, so sending it twice stores it once.
  var OUTBOX = 'selene-outbox', DEADLINE = 6000;
  function outbox() { try { return JSON.parse(localStorage.getItem(OUTBOX) || '[]'); } catch (e) { return []; } }
  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join('');
    return h.slice(0, 8) + '-' + h.slice(8, 12) + '-' + h.slice(12, 16) + '-' + h.slice(16, 20) + '-' + h.slice(20);
  }
  // fetch with a deadline: a request that hangs counts as failed.
  function post(url, body) {
    var abort = window.AbortController ? new AbortController() : null;
    var timer = setTimeout(function () { if (abort) abort.abort(); }, DEADLINE);
    return fetch(url, { method: 'POST', credentials: 'same-origin', body: body, signal: abort ? abort.signal : undefined })
      .then(function (r) { clearTimeout(timer); return r; }, function (e) { clearTimeout(timer); throw e; });
  }
  function say(where, id, message) {
    var p = document.getElementById(id);
    if (!p) { p = document.createElement('p'); p.className = 'flash'; p.setAttribute('role', 'status'); p.id = id; where.prepend(p); }
    p.textContent = message;
  }
  function keep(note, why) {
    var kept = outbox();
    if (!kept.some(function (k) { return k.captureId === note.captureId; })) kept.push(note);
    localStorage.setItem(OUTBOX, JSON.stringify(kept));
    capture.reset();
    say(capture, 'outbox-kept', why + ': the note is kept in this browser and sent when Selene answers (' + kept.length + ' waiting).');
    retryLater();
  }
  // A page the worker answered from its copy (Selene not answering, or not in time) says so.
  var shownMain = document.querySelector('main');
  if (document.documentElement.hasAttribute('data-kept-copy') && shownMain) {
    say(shownMain, 'kept-copy-note', 'Selene isn\u2019t answering: this is the page as last seen. Notes you write are kept in this browser and sent when it answers.');
  }
  var capture = document.querySelector('form[action="/app/notes/new"]');
  if (capture && window.localStorage && window.fetch) {
    capture.addEventListener('submit', function (event) {
      event.preventDefault();
      var note = { content: capture.querySelector('[name=content]').value, title: capture.querySelector('[name=title]').value, captureId: newId() };
      if (navigator.onLine === false) { keep(note, 'You are offline'); return; }
      var body = new URLSearchParams(new FormData(capture));
      body.set('captureId', note.captureId);
      post('/app/notes/new', body).then(function (r) {
        // Selene answered: show what it said (the saved note, or why not).
        if (r.redirected) { location.href = r.url; return; }
        return r.text().then(function (html) { document.open(); document.write(html); document.close(); });
      }, function () { keep(note, 'Selene can\'t be reached right now'); });
    });
  }
  var flushing = false, retryTimer = null;
  function retryLater() { if (!retryTimer && outbox().length) retryTimer = setTimeout(function () { retryTimer = null; flushOutbox(); }, 15000); }
  function flushOutbox() {
    // Any signed-in page carries the token (its main's data-csrf); a form's field is the same.
    var holder = document.querySelector('main[data-csrf]'), field = document.querySelector('input[name=_csrf]');
    var token = (holder && holder.getAttribute('data-csrf')) || (field && field.value), kept = outbox();
    if (!kept.length || !token || flushing) return;
    flushing = true;
    var note = kept[0];
    post('/app/notes/new', new URLSearchParams({ _csrf: token, content: note.content, title: note.title || '', captureId: note.captureId || '' }))
    .then(function (r) {
      flushing = false;
      if (!r.ok) { retryLater(); return; }
      var now = outbox();
      if (now.length && now[0].captureId === note.captureId) localStorage.setItem(OUTBOX, JSON.stringify(now.slice(1)));
      var left = outbox().length;
      var main = document.querySelector('main');
      var kept = document.getElementById('outbox-kept');
      if (kept && !left) kept.remove();
      if (main && !left) say(main, 'outbox-sent', 'The notes you wrote while Selene couldn\'t be reached were saved.');
      flushOutbox();
    }, function () { flushing = false; retryLater(); });
  }
  window.addEventListener('online', flushOutbox);
  flushOutbox();
})();
