"""The real `selene` binary as a process (the browser tests, the cluster and real-model tiers): start it on a free loopback port with its own data folder, call its API, sign in
to its web app, wait for its queue to settle, kill it. And the model stand-in, `selene-ollama-stub`,
as a process that can go down, come back on its port, and fail on demand."""
import http.client
import http.cookiejar
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from harness import binary
from harness.net import free_port, wait_for

TOKEN = "selene-process-test-token-0123456789-abcdefghijkl"
SELENE = binary("selene", "SELENE_SERVER_BIN")
STUB = binary("selene-ollama-stub", "SELENE_STUB_BIN")


class Selene:
    """One `selene serve` process. `data` (its folder) outlives restarts; `stop()` removes it."""

    def __init__(self, env, data=None, port=None, token=TOKEN):
        self.data = data or tempfile.mkdtemp(prefix="selene-proc-")
        self.port = port or free_port()
        self.token = token
        self.env = dict(os.environ, SELENE_DATA_DIR=self.data, SELENE_API_TOKEN=token, SELENE_BRIEFING_HOUR="off", LOG_LEVEL="notice")
        self.env.update(env)
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.starts = 0

    def start(self, timeout=60):
        self.starts += 1
        log = os.path.join(self.data, f"selene-{self.starts}.log")
        self.proc = subprocess.Popen([SELENE, "serve", "--hostname", "127.0.0.1", "--port", str(self.port)], env=self.env,
                                     stdout=open(log, "w"), stderr=subprocess.STDOUT)
        try:
            wait_for(self.base + "/health", self.proc, log, timeout)
        except RuntimeError as error:
            raise RuntimeError(f"selene did not start: {error}") from None
        return self

    def log(self):
        return open(os.path.join(self.data, f"selene-{self.starts}.log")).read()

    def kill(self):
        """SIGKILL: no shutdown, no flush: what a crash or a power cut leaves."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def terminate(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()

    def stop(self):
        self.terminate()
        if not os.environ.get("SELENE_KEEP_DATA"):
            shutil.rmtree(self.data, ignore_errors=True)

    def api(self, method, path, body=None, timeout=600):
        return api(self.base, method, path, body, timeout, token=self.token)

    def settle(self, bound):
        try:
            return settle(self.base, bound)
        except AssertionError as error:
            raise AssertionError(f"{error}\n--- the end of selene's log:\n{self.log()[-3000:]}") from None


def api(base, method, path, body=None, timeout=600, token=TOKEN):
    request = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read() or b"null")


def settle(base, bound):
    """Waits until no note is pending or processing; fails naming what is still waiting."""
    deadline = time.time() + bound
    while time.time() < deadline:
        counts = api(base, "GET", "/api/processing")
        if counts["pending"] == 0 and counts["processing"] == 0:
            return counts
        time.sleep(0.5)
    notes = api(base, "GET", "/api/notes?limit=500")["notes"]
    stuck = [(n["id"], n["status"], n.get("lastError")) for n in notes if n["status"] in ("pending", "processing")]
    raise AssertionError(f"notes still waiting after {bound} s: {stuck}")


def sign_in(base, token=TOKEN):
    """A signed-in web session: an opener with its cookies, and the form token."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(base + "/app/signin", timeout=30).read().decode()
    form = urllib.parse.urlencode({"token": token, "_csrf": form_token(page)}).encode()
    # Signed in, the redirect's page carries the token made for this session's cookies.
    page = opener.open(urllib.request.Request(base + "/app/signin", data=form, method="POST"), timeout=30).read().decode()
    return opener, form_token(page)


def form_token(page):
    """The CSRF token a page's forms carry (bound to the cookies it came with)."""
    field = re.search(r'<input[^>]*name="_csrf"[^>]*>', page).group(0)
    return re.search(r'value="([^"]+)"', field).group(1)


def chat_stream(opener, csrf, base, session, question, on_event=None, timeout=600):
    """Asks through the web app's event stream; answers the events' names and data as they came.
    `on_event(name)` is called as each arrives (it may kill the server)."""
    request = urllib.request.Request(base + f"/app/chat/{session}/stream", method="POST",
                                     data=urllib.parse.urlencode({"_csrf": csrf, "question": question}).encode(),
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    events = []
    try:
        with opener.open(request, timeout=timeout) as response:
            assert response.headers["Content-Type"].startswith("text/event-stream")
            buffer = b""
            while True:
                chunk = response.read1(4096)
                if not chunk:
                    break
                buffer += chunk
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    text = block.decode()
                    name = text.split("\n")[0].removeprefix("event: ")
                    events.append((name, text.split("data: ", 1)[1] if "data: " in text else ""))
                    if on_event:
                        on_event(name)
    except (ConnectionError, urllib.error.URLError, http.client.IncompleteRead):
        events.append(("disconnected", ""))
    return events


class Stub:
    """selene-ollama-stub (an Ollama- and OpenAI-protocol model stand-in) as a process on a port of
    its own, kept across `down()` and `up()`: a model server that goes away and comes back there."""

    def __init__(self, port=None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None

    def up(self):
        if self.proc and self.proc.poll() is None:
            return self
        self.proc = subprocess.Popen([STUB, str(self.port)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline()
        assert line.startswith("listening on"), line
        return self

    def down(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    @property
    def is_up(self):
        return self.proc is not None and self.proc.poll() is None

    def fault(self, fault, times=None, slow=None, chunk_delay=None):
        """Its next answers fail as `fault` says ("none" for none), `times` times or until told
        otherwise; `slow` seconds before each answer, `chunk_delay` between streamed pieces."""
        body = {"fault": fault}
        if times is not None:
            body["times"] = times
        if slow is not None:
            body["slowSeconds"] = slow
        if chunk_delay is not None:
            body["chunkDelay"] = chunk_delay
        request = urllib.request.Request(self.url + "/_stub/fault", data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()
