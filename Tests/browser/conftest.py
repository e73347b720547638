"""What both web apps' browser tests share: a free port, headless Chromium, the screenshot
folder, and the steps a person takes (fill a field, tap, submit and wait)."""
import os
import time

import pytest
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from harness import ROOT
from harness.net import free_port  # noqa: F401  (the tests import it from here)
from harness.stitch import Stitchuation

SIZES = {"phone": (390, 844), "tablet": (820, 1180), "desktop": (1440, 900)}


def chromium(*extra):
    """A headless Chromium of its own (cookies and storage of its own), sized as a phone; `extra`
    are more command-line switches."""
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    # A fake microphone (a tone) that needs no permission prompt: dictation is tested end to end.
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=390,844",
                "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream", *extra]:
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.implicitly_wait(2)
    return driver


@pytest.fixture(scope="module")
def browser():
    driver = chromium()
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots():
    folder = os.environ.get("SCREENSHOT_DIR", os.path.join(ROOT, "test-artifacts", "screenshots"))
    os.makedirs(folder, exist_ok=True)
    print(f"\nscreenshots: {folder}")
    return folder


def snap(driver, folder, name):
    """Screenshots the current page at every size, audits it (`audit`), then returns to the
    phone size."""
    for label, (w, h) in SIZES.items():
        driver.set_window_size(w, h)
        time.sleep(0.3)
        driver.save_screenshot(os.path.join(folder, f"{name}-{label}.png"))
    problems = audit(driver, name)
    driver.set_window_size(*SIZES["phone"])
    assert not problems, "\n".join(problems)


# axe-core (the engine of Lighthouse's accessibility audit), from PyPI's axe-playwright-python:
# its axe.min.js alone, injected by Selenium. WCAG 2.0-2.2 A and AA rules; a critical, serious or
# moderate finding fails the page.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
AXE_FAILING = {"critical", "serious", "moderate"}
_axe = []


def axe_source():
    if not _axe:
        import importlib.util
        spec = importlib.util.find_spec("axe_playwright_python")
        assert spec and spec.submodule_search_locations, "axe-playwright-python is not installed (scripts/test installs it)"
        with open(os.path.join(list(spec.submodule_search_locations)[0], "axe.min.js"), encoding="utf-8") as f:
            _axe.append(f.read())
    return _axe[0]


def audit(driver, name, widths=(390, 1280)):
    """What a person meets on this page: axe-core's findings at a phone's and a laptop's width,
    and whether the page fits 320 CSS px without scrolling sideways (WCAG 1.4.10, reflow)."""
    problems = []
    driver.set_script_timeout(60)
    for width in widths:
        driver.set_window_size(width, 900)
        if not driver.execute_script("return !!window.axe"):
            driver.execute_script(axe_source())
        # The settled page: rows fade in when a layout shows them (a split list appears at 1024 px).
        driver.execute_script("document.getAnimations().forEach(function (a) { try { a.finish(); } catch (e) {} })")
        found = driver.execute_async_script("""
            var done = arguments[arguments.length - 1];
            axe.run(document, {runOnly: {type: 'tag', values: arguments[0]}, resultTypes: ['violations']})
              .then(function (r) { done(r.violations.map(function (v) {
                  return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map(function (n) { return n.target.join(' '); })};
              })); }, function (e) { done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]); });""", AXE_TAGS)
        for v in found:
            if v["impact"] in AXE_FAILING:
                problems.append(f"{name} at {width}px: {v['id']} ({v['impact']}): {v['help']} - {v['nodes']}")
    driver.set_window_size(320, 900)
    time.sleep(0.2)
    wide = driver.execute_script("""
        var width = window.innerWidth, out = [];
        document.querySelectorAll('body *').forEach(function (el) {
          var r = el.getBoundingClientRect();
          if (r.width && r.right > width + 0.5 && !(el.parentElement && el.parentElement.getBoundingClientRect().right > width + 0.5))
            out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && el.className.baseVal === undefined ? '.' + String(el.className).trim().replace(/\\s+/g, '.') : '') + ' to ' + Math.round(r.right) + 'px');
        });
        return [document.documentElement.scrollWidth, width, out.slice(0, 5)];""")
    if wide[0] > wide[1]:
        problems.append(f"{name} at 320px: the page is {wide[0]}px wide (reflow, WCAG 1.4.10): {wide[2]}")
    return problems


# Every URL the page's service worker has a copy of, in any of its caches.
KEPT_URLS = ("var done = arguments[arguments.length - 1]; caches.keys().then(function (names) { return Promise.all(names.map(function (n) {"
             " return caches.open(n).then(function (c) { return c.keys(); }).then(function (k) { return k.map(function (r) { return r.url; }); }); })); })"
             ".then(function (lists) { done([].concat.apply([], lists)); });")


def until_kept(driver, paths, seconds=15):
    """Waits until the service worker has its copy of each page (written just after the page
    arrives) — what a test going offline next relies on."""
    def kept(d):
        urls = [u.split("?")[0] for u in d.execute_async_script(KEPT_URLS)]
        return all(any(u.endswith(p) for u in urls) for p in paths)
    WebDriverWait(driver, seconds).until(kept)


def tab_to(driver, matches, limit=80, what="the element"):
    """Moves the focus with the Tab key alone until `matches(element)`; at every stop on the way
    the focused element must be shown on the page with a visible focus ring (an outline of at
    least 2 px, or a box shadow) — WCAG 2.4.7. Returns the element reached."""
    seen = []
    for step in range(limit + 1):
        # Already there (a field the page focuses when it opens): a person just types.
        if step > 0:
            ActionChains(driver).send_keys(Keys.TAB).perform()
        element = driver.switch_to.active_element
        if element.tag_name.lower() == "body":
            if step > 0:
                seen.append("(the page itself)")
            continue
        ring = driver.execute_script("""
            var e = arguments[0], s = getComputedStyle(e), r = e.getBoundingClientRect();
            return { outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2, shadow: s.boxShadow !== 'none',
                     shown: r.width > 0 && r.height > 0, tag: e.tagName, label: (e.getAttribute('aria-label') || e.name || e.textContent || '').trim().slice(0, 40) };""",
            element)
        seen.append(ring["tag"] + " " + ring["label"])
        assert ring["shown"] and (ring["outline"] or ring["shadow"]), f"going to {what}: no visible focus on {ring} (after {seen})"
        if matches(element):
            return element
    raise AssertionError(f"Tab never reached {what}: {seen}")


def keys(driver, *typed):
    """Types into whatever has the focus, as a keyboard does."""
    ActionChains(driver).send_keys(*typed).perform()


def retype(driver, text):
    """Ctrl+A, then `text`: what is in the focused field replaced by typing."""
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).send_keys(text).perform()


def fill(driver, name, value):
    field = driver.find_element(By.NAME, name)
    field.clear()
    field.send_keys(value)


def gone(element):
    """Whether a page element has been replaced by a navigation. Chromium sometimes reports a
    replaced node as an inspector error rather than a stale element; both mean the same."""
    def check(_):
        try:
            element.is_enabled()
            return False
        except WebDriverException:
            return True
    return check


def click(driver, element):
    """Scrolls an element to the middle of the screen (clear of the phone's tab bar) and taps it."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def loaded(driver, page, seconds=10):
    """Waits until `page` (the <html> of the page before) has been replaced and the next page
    has loaded. While the new page is being made, Chromium may answer a script with an inspector
    error ("cannot find context") rather than a result: that is read as "not loaded yet", not as
    a failure."""
    WebDriverWait(driver, seconds).until(gone(page))
    WebDriverWait(driver, seconds, ignored_exceptions=[WebDriverException]).until(
        lambda d: d.execute_script("return document.readyState") == "complete")


def press(driver, element, seconds=10):
    """Taps a button or link that loads a page and waits until the next page has loaded."""
    page = driver.find_element(By.TAG_NAME, "html")
    click(driver, element)
    loaded(driver, page, seconds)


def submit(driver, text):
    """Submits a form with its button and waits for the next page to load."""
    press(driver, driver.find_element(By.XPATH, f"//button[normalize-space()='{text}']"))


def follow(driver, element):
    """Taps a link and waits for the page it leads to."""
    press(driver, element)


class StitchServer(Stitchuation):
    """The real stitchuation binary (STITCH_SERVER_BIN) on a free port with a throwaway data
    directory. `stop()` and `start()` again keep its port and its data: a server that goes away
    and comes back. `extra_env` may hold `of_base`, a function of the base URL, for settings that
    name the server's own address."""

    def __init__(self, **extra_env):
        super().__init__(os.environ)
        settings = extra_env.pop("of_base", lambda _: {})(self.base)
        # Every test signs in from 127.0.0.1: the per-address limit (ClientThrottleTests) is lifted here.
        self.env.update(LOG_LEVEL="warning", CLIENT_ATTEMPT_LIMIT="100000", **extra_env, **settings)


def stitch_server(**extra_env):
    """A StitchServer started; yields its base URL (a generator for a fixture) and ends it."""
    server = StitchServer(**extra_env).start()
    yield server.base
    server.close()


def touch(driver, kind, points):
    """A touch event through DevTools (what a finger does on a phone): `points` are (x, y)."""
    driver.execute_cdp_cmd("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def centre_of(driver, element):
    """An element scrolled to the middle of the screen, and its centre there."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    r = driver.execute_script("var r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height]", element)
    return r[0] + r[2] / 2, r[1] + r[3] / 2


def pinch_out(driver, cx, cy, gap, step):
    """Two fingers `gap` apart about (cx, cy), spread by `step` on each side ten times."""
    touch(driver, "touchStart", [(cx - gap, cy), (cx + gap, cy)])
    for n in range(1, 11):
        touch(driver, "touchMove", [(cx - gap - step * n, cy), (cx + gap + step * n, cy)])
    touch(driver, "touchEnd", [])
