#!/usr/bin/env python3
"""Stitchuation's web app on a phone with one bar of signal (#64), measured in real Chromium.

Run on purpose, never by the test suite:

    swift build -c release --product stitchuation
    BIN_PATH=.build/release python3 Benchmarks/stitch-web/bench.py            # 454 and 5,000 threads
    python3 Benchmarks/stitch-web/bench.py --threads 454 --json web.json      # one size, figures kept
    python3 Benchmarks/stitch-web/bench.py --photos 100                       # pictures (needs Pillow)

The profile is the issue's: a 390 px phone with a 4x slower CPU (DevTools' CPU throttling) on
slow 4G (150 ms a round trip, 1.6 Mbit/s down, 750 kbit/s up: DevTools' network emulation). An
account holds N threads (the first 454 are the DMC catalogue of Sources/StitchServer/Resources/
catalogs/dmc-floss.csv, the rest made up), 30 canvases and 10 projects of 15 threads each (a third
or so of them short, so the shopping list has lines). For each page:

- **first visit**: the browser's cache, its service worker and Cache Storage emptied (the session
  cookie kept): the bytes moved (every response's encoded length, headers included, from
  DevTools' Network.loadingFinished) and the time until everything is in (the load event, and
  every font and picture the page asked for);
- **repeat visit**: the same page opened again, the HTTP cache warm (the page's HTML comes again
  over the link; the service worker is bypassed, see `chromium()`): everything in, and beside it
  the page's load event (the browser asks for the tab's icon after that, once the page is idle);
- **HTML**: the page's document as sent (its encoded bytes, and how it was encoded) and the
  number of elements it holds.

With `--photos N` it measures pictures instead (#60.3): an account with N canvases, each with its own
phone photo (a 3024×4032 JPEG of about 2 MB, made with Pillow), and a project whose journal holds
12 of them. The stash and the project's page are opened as on a first visit; beside the bytes the
pages' pictures moved is the baseline of the same run: the same pictures as uploaded, which is
what those pages sent before sizes were made.

The baseline beside each figure is the same page's bare cost measured in the same visit: the HTML
document alone (its encoded bytes, and the time until its last byte arrived). The ratios say what
everything else on the page costs on top of it. The targets are the issue's: a first visit moves
at most 250 KiB and is whole within 3 s, a repeat visit within 1 s.
"""
import argparse
import csv
import json
import os
import sys
import time
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests"))
sys.path.insert(0, os.path.join(ROOT, "Tests", "browser"))

from harness.stitch import STITCHUATION, Stitchuation  # noqa: E402
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

PASSWORD = "correct horse battery staple"
# Slow 4G as Lighthouse and DevTools define it.
NETWORK = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8, "uploadThroughput": 750_000 / 8}
CPU_SLOWDOWN = 4
TARGETS = {"first_kib": 250, "first_s": 3.0, "repeat_s": 1.0}
NOW = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())


def call(base, method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    request = urllib.request.Request(base + path, method=method, headers=headers, data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.loads(response.read() or b"null")


def catalogue():
    with open(os.path.join(ROOT, "Sources", "StitchServer", "Resources", "catalogs", "dmc-floss.csv")) as f:
        return [row for row in csv.reader(f) if row and not row[0].startswith("#") and row[0] != "number"]


def record(kind, data):
    return {"type": kind, "id": data["id"], "action": "upsert", "data": data, "updatedAt": NOW}


def stamp(data):
    data.update(createdAt=NOW, updatedAt=NOW)
    return data


def seed(base, email, count):
    """An account with `count` threads, 30 canvases and 10 projects of 15 threads; its project ids."""
    token = call(base, "POST", "/auth/register", {"email": email, "password": PASSWORD, "displayName": "Bench"})["accessToken"]
    dmc = catalogue()
    threads = []
    for i in range(count):
        if i < len(dmc):
            number, name, hexcode = dmc[i][:3]
            brand, hexcode = "DMC", "#" + hexcode if hexcode else None
        else:
            number, name, hexcode, brand = str(i), f"Shade {i}", "#%06x" % (i * 2654435761 % 0xFFFFFF), "Bench Silk"
        threads.append(stamp({"id": str(uuid.uuid4()), "brand": brand, "number": number, "colorName": name or None,
                              "colorHex": hexcode or None, "fiberType": "cotton" if brand == "DMC" else "silk", "quantity": i % 4}))
    canvases = [stamp({"id": str(uuid.uuid4()), "designer": f"Designer {i % 7}", "designName": f"Canvas {i + 1}", "meshCount": 18})
                for i in range(30)]
    projects, lines = [], []
    for p in range(10):
        project = stamp({"id": str(uuid.uuid4()), "canvasId": canvases[p]["id"], "status": "wip", "startedAt": NOW})
        projects.append(project)
        for t in range(15):
            thread = threads[(p * 15 + t) % len(threads)]
            lines.append(stamp({"id": str(uuid.uuid4()), "projectId": project["id"], "threadId": thread["id"], "brand": thread["brand"],
                                "number": thread["number"], "quantityNeeded": max(1, thread["quantity"]) + (1 if t % 3 == 0 else 0)}))
    changes = [record("thread", t) for t in threads] + [record("canvas", c) for c in canvases] + \
              [record("project", p) for p in projects] + [record("projectThread", line) for line in lines]
    client = str(uuid.uuid4())
    for start in range(0, len(changes), 2_000):
        answer = call(base, "POST", "/sync", {"clientId": client, "changes": changes[start:start + 2_000], "limit": 1}, token)
        refused = [r for r in answer["results"] if r["status"] != "applied"]
        if refused:
            raise SystemExit(f"The server refused part of the seed: {refused[:3]}")
    return [p["id"] for p in projects]


def chromium():
    options = Options()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=390,844"]:
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
    driver.execute_cdp_cmd("Network.enable", {})
    # Requests a service worker makes are its own target's: DevTools' throttling and byte counts on
    # the page don't see them. So the page goes to the network (and the HTTP cache) itself: a
    # repeat visit is the HTML again over slow 4G with everything else from the cache, which is
    # what the worker's network-first answer costs too.
    driver.execute_cdp_cmd("Network.setBypassServiceWorker", {"bypass": True})
    return driver


def sign_in(driver, base, email):
    driver.get(base + "/app/signin")
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "password").send_keys(PASSWORD)
    page = driver.find_element(By.TAG_NAME, "html")
    driver.find_element(By.XPATH, "//button[normalize-space()='Sign in']").click()
    WebDriverWait(driver, 30).until(lambda d: "/app/signin" not in d.current_url and page.id != d.find_element(By.TAG_NAME, "html").id)


def forget(driver, base):
    """A first visit's browser: no HTTP cache, no service worker, no Cache Storage (cookies kept)."""
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    driver.execute_cdp_cmd("Network.clearBrowserCache", {})
    driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": base, "storageTypes": "service_workers,cache_storage"})


def throttle(driver, on):
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", NETWORK if on else
                           {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN if on else 1})


def visit(driver, url):
    """Opens `url` and waits until everything is in; what moved and when."""
    driver.get_log("performance")  # what came before is not this visit's
    driver.get(url)
    WebDriverWait(driver, 120).until(lambda d: d.execute_script(
        "return document.readyState === 'complete' && document.fonts.status === 'loaded'"))
    time.sleep(0.5)  # a late request (a picture, the service worker's own fetches) still counts
    timing = driver.execute_script("""
        var nav = performance.getEntriesByType('navigation')[0];
        var last = nav.loadEventEnd;
        performance.getEntriesByType('resource').forEach(function (r) { last = Math.max(last, r.responseEnd); });
        return {html: nav.responseEnd, load: nav.loadEventEnd, all: last, elements: document.getElementsByTagName('*').length,
                htmlBytes: nav.encodedBodySize, htmlDecoded: nav.decodedBodySize};""")
    moved, encoding = 0, {}
    requests = {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message["method"] == "Network.responseReceived":
            requests[params["requestId"]] = params["response"]
        elif message["method"] == "Network.loadingFinished":
            moved += params.get("encodedDataLength", 0)
    for response in requests.values():
        if response.get("url", "").split("#")[0] == url:
            headers = {k.lower(): v for k, v in response.get("headers", {}).items()}
            encoding = headers.get("content-encoding", "none")
    return {"bytes": moved, "seconds": timing["all"] / 1000, "load_seconds": timing["load"] / 1000, "html_seconds": timing["html"] / 1000, "html_bytes": timing["htmlBytes"],
            "html_decoded": timing["htmlDecoded"], "encoding": encoding or "none", "elements": timing["elements"]}


def measure(base, email, projects, label):
    driver = chromium()
    try:
        sign_in(driver, base, email)
        pages = [("inventory", "/app/inventory"), ("projects", "/app/projects"), ("shopping list", "/app/shopping"),
                 ("stash", "/app/stash"), ("a project", f"/app/projects/{projects[0]}")]
        rows = []
        for name, path in pages:
            url = base + path
            forget(driver, base)
            throttle(driver, True)
            first = visit(driver, url)
            repeat = visit(driver, url)
            throttle(driver, False)
            rows.append({"threads": label, "page": name, "first": first, "repeat": repeat})
        return rows
    finally:
        driver.quit()


def kib(n):
    return f"{n / 1024:,.0f} KiB"


def table(rows):
    print("| threads | page | first visit: bytes (HTML alone, ratio) | everything in (HTML alone, ratio) | repeat visit (its load event) | HTML as sent | elements |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        f, again = r["first"], r["repeat"]
        ok = lambda good: "" if good else " ✗"  # noqa: E731
        print(f"| {r['threads']:,} | {r['page']} "
              f"| {kib(f['bytes'])} ({kib(f['html_bytes'])}, {f['bytes'] / max(1, f['html_bytes']):.1f}×){ok(f['bytes'] <= TARGETS['first_kib'] * 1024)} "
              f"| {f['seconds']:.2f} s ({f['html_seconds']:.2f} s, {f['seconds'] / max(0.001, f['html_seconds']):.2f}×){ok(f['seconds'] <= TARGETS['first_s'])} "
              f"| {kib(again['bytes'])}, {again['seconds']:.2f} s ({again['load_seconds']:.2f} s){ok(again['seconds'] <= TARGETS['repeat_s'])} "
              f"| {kib(f['html_bytes'])} {f['encoding']} of {kib(f['html_decoded'])} | {f['elements']:,} |")


PHOTO_PARTS = {}


def phone_photo(i):
    """A 12-megapixel JPEG like a phone's: a gradient with noise, tinted differently for each `i`."""
    import io
    from PIL import Image, ImageChops
    if not PHOTO_PARTS:
        PHOTO_PARTS["base"] = Image.linear_gradient("L").resize((3024, 4032)).convert("RGB")
        PHOTO_PARTS["noise"] = Image.effect_noise((3024, 4032), 6).convert("RGB")
    base, noise = PHOTO_PARTS["base"], PHOTO_PARTS["noise"]
    tint = Image.new("RGB", base.size, (64 + (i * 53) % 192, 64 + (i * 97) % 192, 64 + (i * 31) % 192))
    picture = ImageChops.add(ImageChops.multiply(base, tint), noise, scale=1.2)
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=85)
    return out.getvalue()


def upload(base, token, data):
    boundary = "bench-" + uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"IMG.jpg\"\r\n"
            f"Content-Type: image/jpeg\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(base + "/images", method="POST", data=body, headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}", "Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.loads(response.read())


def measure_photos(base, count):
    """N canvases with a photo each and a project with 12 journal photos; their pages' picture bytes
    beside the same pictures as uploaded."""
    email = f"photos-{count}@example.com"
    token = call(base, "POST", "/auth/register", {"email": email, "password": PASSWORD, "displayName": "Bench"})["accessToken"]
    sizes = {}
    canvases = []
    signed_in = time.time()
    for i in range(count):
        if time.time() - signed_in > 600:  # an access token lasts 15 minutes
            token = call(base, "POST", "/auth/login", {"email": email, "password": PASSWORD})["accessToken"]
            signed_in = time.time()
        picture = upload(base, token, phone_photo(i))
        sizes[picture["key"]] = picture["byteSize"]
        canvases.append(stamp({"id": str(uuid.uuid4()), "designer": "Designer", "designName": f"Canvas {i + 1}", "imageKey": picture["key"]}))
    project = stamp({"id": str(uuid.uuid4()), "name": "Journal of photos", "status": "wip", "startedAt": NOW})
    entry = stamp({"id": str(uuid.uuid4()), "projectId": project["id"], "notes": "A week of stitching"})
    photos = [stamp({"id": str(uuid.uuid4()), "entryId": entry["id"], "imageKey": c["imageKey"], "sortOrder": n}) for n, c in enumerate(canvases[:12])]
    changes = [record("canvas", c) for c in canvases] + [record("project", project), record("journalEntry", entry)] + \
              [record("journalImage", p) for p in photos]
    token = call(base, "POST", "/auth/login", {"email": email, "password": PASSWORD})["accessToken"]
    answer = call(base, "POST", "/sync", {"clientId": str(uuid.uuid4()), "changes": changes, "limit": 1}, token)
    if any(r["status"] != "applied" for r in answer["results"]):
        raise SystemExit("The server refused part of the seed")
    driver = chromium()
    rows = []
    try:
        sign_in(driver, base, email)
        for name, path in [(f"stash ({count} canvases with photos)", "/app/stash"), ("a project (12 journal photos)", f"/app/projects/{project['id']}")]:
            forget(driver, base)
            throttle(driver, True)
            seen = visit(driver, base + path)
            pictures = driver.execute_script("""
                return performance.getEntriesByType('resource').filter(function (r) { return r.name.indexOf('/app/images/') >= 0; })
                  .map(function (r) { return [r.name, r.encodedBodySize]; });""")
            throttle(driver, False)
            moved = sum(size for _, size in pictures)
            before = sum(sizes.get(url.split("/app/images/")[1].split("?")[0], 0) for url, _ in pictures)
            rows.append({"page": name, "pictures": len(pictures), "picture_bytes": moved, "as_uploaded": before,
                         "page_bytes": seen["bytes"], "seconds": seen["seconds"]})
    finally:
        driver.quit()
    print("| page | pictures shown | their bytes now | the same pictures as uploaded (before) | ratio | whole page | everything in |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['page']} | {r['pictures']} | {kib(r['picture_bytes'])} | {kib(r['as_uploaded'])} "
              f"| {r['picture_bytes'] / max(1, r['as_uploaded']):.3f}× | {kib(r['page_bytes'])} | {r['seconds']:.2f} s |")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, action="append", help="threads in the account (454 and 5000 unless given)")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--photos", type=int, help="measure pictures instead: this many canvases with a phone photo each")
    args = parser.parse_args()
    sizes = args.threads or [454, 5000]
    server = Stitchuation(dict(os.environ, LOG_LEVEL="warning", CLIENT_ATTEMPT_LIMIT="100000")).start()
    print(f"stitchuation: {os.path.relpath(STITCHUATION, ROOT)}; "
          f"slow 4G (150 ms, 1.6 Mbit/s down), CPU {CPU_SLOWDOWN}× slower, 390 px; "
          f"targets: first visit ≤ {TARGETS['first_kib']} KiB and ≤ {TARGETS['first_s']:.0f} s, repeat ≤ {TARGETS['repeat_s']:.0f} s (✗ where missed)\n")
    try:
        if args.photos:
            photos = measure_photos(server.base, args.photos)
            if args.json:
                with open(args.json, "w") as f:
                    json.dump({"profile": {"network": NETWORK, "cpuSlowdown": CPU_SLOWDOWN}, "photos": photos}, f, indent=2)
            return
        rows = []
        for count in sizes:
            email = f"bench-{count}@example.com"
            projects = seed(server.base, email, count)
            rows += measure(server.base, email, projects, count)
        table(rows)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"profile": {"network": NETWORK, "cpuSlowdown": CPU_SLOWDOWN}, "targets": TARGETS, "pages": rows}, f, indent=2)
    finally:
        server.close()


if __name__ == "__main__":
    main()
