"""Browser tests of Selene's web app in real headless Chromium (Selenium).

Starts the Ollama-protocol stub (SELENE_STUB_BIN, default .build/debug/selene-ollama-stub) and the
real server (SELENE_SERVER_BIN, default .build/debug/selene) with an API token on free local
ports, then walks through Selene as its person would: sign in, capture, a streamed chat answer
with citations, threads, the briefing, memories, search, devices, status; the same without
JavaScript; and the set-up screen of a server without a token. Screenshots of each page at
phone, tablet and desktop sizes go to SCREENSHOT_DIR (default test-artifacts/screenshots)."""
import re
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from conftest import SIZES, chromium, click, fill, follow, keys, press, snap, submit, tab_to, until_kept
from harness import binary
from harness.net import free_port, wait_for
from harness.selene import Selene, Stub
from harness.selene import api as selene_api
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.support.ui import Select, WebDriverWait

TOKEN = "browser-test-token-0123456789-abcdefghijklmnop"
GARDEN = [
    "Garden plan: tomatoes in the raised garden bed, compost the garden soil",
    "Garden soil needs compost before the tomatoes go in the garden bed",
    "I need to buy compost for the garden bed tomatoes and garden soil",
]


def api(base, method, path, body=None, token=TOKEN):
    return selene_api(base, method, path, body, timeout=30, token=token)


RUNNING = {}


def SERVER_ENV(stub_url):
    return {"SELENE_OLLAMA_URL": stub_url, "SELENE_CHAT_MODEL": "stub-chat", "SELENE_EMBED_MODEL": "stub-embed", "LOG_LEVEL": "warning",
            "SELENE_STT_URL": stub_url, "SELENE_STT_MODEL": "stub-whisper", "SELENE_WEBPUSH_LOOPBACK_HTTP": "true",
            # The stub's vectors are hashed bags of words: the thresholds these cases were written for.
            "SELENE_THREAD_JOIN": "0.7", "SELENE_THREAD_SEED": "0.7", "SELENE_ASSOCIATION_THRESHOLD": "0.6"}


def stop_server():
    """Takes the server away (the network is gone, as far as the browser can tell)."""
    RUNNING["server"].terminate()


def restart_server():
    """The same server again, on the same port and data."""
    RUNNING["server"].start()


@pytest.fixture(scope="module")
def selene():
    """The stub and a Selene with an API token; yields (base URL, the stub)."""
    stub = Stub().up()
    server = Selene(SERVER_ENV(stub.url), token=TOKEN).start()
    RUNNING.update(server=server)
    # Slow enough that the progress and the pieces of an answer can be seen arriving.
    stub.fault("none", chunk_delay=0.04)
    yield server.base, stub
    server.stop()
    stub.down()


def processed(base):
    """Waits until the server's worker has processed every note."""
    for _ in range(200):
        counts = api(base, "GET", "/api/processing")
        if counts["pending"] == 0 and counts["processing"] == 0:
            return counts
        time.sleep(0.1)
    raise AssertionError(f"notes still waiting: {counts}")


def threads_when(base, ready, seconds=30):
    """The threads once `ready(threads)` holds (or the time is up). A note counts as processed
    once its reading is stored; its thread is found and named by the model just after, so a
    loaded machine (CI runs two browser suites side by side) can read the count before the thread."""
    deadline = time.time() + seconds
    while True:
        threads = api(base, "GET", "/api/threads")["threads"]
        if ready(threads) or time.time() > deadline:
            return threads
        time.sleep(0.1)


def until(driver, condition, seconds=10):
    """Waits for a condition across a page change (an element may be replaced while it is read)."""
    WebDriverWait(driver, seconds, ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def ask(driver, question):
    """Types a question, sends it, and waits for the streamed answer to end; returns the progress
    states the page showed on the way."""
    driver.execute_script("""
        window.__states = [];
        var progress = document.getElementById('progress');
        new MutationObserver(function () { window.__states.push(progress.textContent); })
            .observe(progress, {childList: true, characterData: true, subtree: true});""")
    box = driver.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    count = len(driver.find_elements(By.CSS_SELECTOR, "#conversation > li"))
    click(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Ask']"))
    until(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#conversation > li")) >= count + 2
                                    and d.find_element(By.ID, "progress").text == ""
                                    and not d.find_element(By.XPATH, "//button[normalize-space()='Ask']").get_attribute("disabled"), 20)
    return [s for s in driver.execute_script("return window.__states") if s]


def test_sign_in(selene, browser, shots):
    base, _ = selene
    browser.get(base + "/app")
    assert browser.current_url.endswith("/app/signin")
    snap(browser, shots, "selene-signin")
    fill(browser, "token", "not-the-token-not-the-token-not-the-token")
    submit(browser, "Sign in")
    assert "isn't one of this server's API tokens" in browser.page_source
    fill(browser, "token", TOKEN)
    submit(browser, "Sign in")
    assert "/app/chat/" in browser.current_url
    assert "No conversations yet." in browser.page_source
    cookie = browser.get_cookie("selene_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"


def test_capture(selene, browser, shots):
    base, _ = selene
    browser.get(base + "/app/more")
    snap(browser, shots, "selene-more")
    follow(browser, browser.find_element(By.LINK_TEXT, "Capture a note"))
    assert browser.current_url.endswith("/app/notes/new")
    snap(browser, shots, "selene-capture")
    fill(browser, "content", GARDEN[0])
    submit(browser, "Save")
    assert "Selene will work out what it's about" in browser.page_source
    assert GARDEN[0] in browser.find_element(By.CSS_SELECTOR, "pre.note").text
    for text in GARDEN[1:]:
        api(base, "POST", "/api/notes", {"content": text})
    processed(base)
    threads = threads_when(base, lambda t: len(t) == 1 and t[0]["noteCount"] == 3)
    assert len(threads) == 1 and threads[0]["noteCount"] == 3
    browser.refresh()
    assert browser.find_element(By.XPATH, "//dt[normalize-space()='Thread']/following-sibling::dd[1]").text == threads[0]["name"]
    snap(browser, shots, "selene-note")


def test_streamed_chat_with_citations(selene, browser, shots):
    base, _ = selene
    browser.get(base + "/app/chat")
    states = ask(browser, "What's in my garden soil thread?")
    # The page showed the live progress (quick steps may share one repaint) and then the writing.
    assert ("Searching notes…" in states or "Thinking…" in states) and "Writing…" in states, states
    answer = browser.find_elements(By.CSS_SELECTOR, "#conversation > li.assistant")[-1]
    assert answer.find_element(By.CSS_SELECTOR, ".answer").text.startswith("From your notes:")
    # Each message says when, in the reader's own time zone (the page's UTC, localised by selene.js).
    for message in browser.find_elements(By.CSS_SELECTOR, "#conversation > li")[-2:]:
        when = message.find_element(By.CSS_SELECTOR, ".who time.when")
        assert re.search(r"\d{1,2}:\d{2}", when.text) and "UTC" not in when.text, when.text
        assert message.find_element(By.CSS_SELECTOR, ".who").text.startswith(("You", "Selene"))
    assert browser.find_element(By.ID, "conversation-title").text == "What's in my garden soil thread?"
    links = answer.find_elements(By.CSS_SELECTOR, "a.cite")
    assert len(links) == 3 and [a.text for a in links] == ["[1]", "[2]", "[3]"]
    assert all("/app/notes/" in a.get_attribute("href") for a in links)
    snap(browser, shots, "selene-chat")
    # The conversation was saved: it is there after a reload, with the same links.
    browser.refresh()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#conversation a.cite")) == 3
    assert "What's in my garden soil thread?" in browser.find_element(By.CSS_SELECTOR, ".sessions").get_attribute("textContent")
    assert "Today" in browser.find_element(By.CSS_SELECTOR, ".sessions li time.when").get_attribute("textContent")
    follow(browser, browser.find_elements(By.CSS_SELECTOR, "#conversation a.cite")[0])
    assert "/app/notes/" in browser.current_url
    assert "Related notes" in browser.page_source


def test_stream_events_in_order(selene, browser):
    """The stream the page reads: progress states in order, the answer's pieces, then the answer."""
    base, _ = selene
    browser.get(base + "/app/more")
    csrf = browser.find_element(By.CSS_SELECTOR, 'input[name="_csrf"]').get_attribute("value")
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in browser.get_cookies())
    request = urllib.request.Request(base + "/app/chat/00000000-0000-4000-8000-000000000001/stream", method="POST",
                                     data=urllib.parse.urlencode({"_csrf": csrf, "question": "garden soil?"}).encode(),
                                     headers={"Cookie": cookies, "Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        events = [block for block in response.read().decode().split("\n\n") if block]
    names = [e.split("\n")[0].removeprefix("event: ") for e in events]
    assert names[:2] == ["progress", "progress"] and names[-1] == "done" and set(names[2:-1]) == {"delta"}
    assert events[0].endswith("Searching notes…") and events[1].endswith("Thinking…")
    done = json.loads(events[-1].split("data: ", 1)[1])
    assert 'class="cite"' in done["html"] and "00000000-0000-4000-8000-000000000001" in done["sessions"]
    forged = urllib.request.Request(request.full_url, method="POST", data=b"_csrf=forged&question=x",
                                    headers={"Cookie": cookies, "Content-Type": "application/x-www-form-urlencoded"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(forged, timeout=30)
    assert refused.value.code == 403


def test_sessions(selene, browser):
    base, _ = selene
    browser.get(base + "/app/chat")
    before = len(browser.find_elements(By.CSS_SELECTOR, ".sessions li"))
    submit(browser, "New chat")
    ask(browser, "Anything about compost?")
    # On a phone the conversations fold into one line; opened, they stay open from page to page.
    summary = browser.find_element(By.CSS_SELECTOR, ".session-list > summary")
    assert summary.text.startswith("Conversations (")
    click(browser, summary)
    items = browser.find_elements(By.CSS_SELECTOR, ".sessions li")
    assert len(items) == before + 1 and items[0].text.startswith("Anything about compost?")
    oldest = items[-1]
    title = oldest.find_element(By.CSS_SELECTOR, "a").text
    follow(browser, oldest.find_element(By.XPATH, ".//button[normalize-space()='Pin']"))
    until(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".sessions li .pinned") and title in d.find_element(By.CSS_SELECTOR, ".sessions li").text)
    browser.execute_script("window.confirm = function () { return true; }")
    newest = browser.find_elements(By.CSS_SELECTOR, ".sessions li")[1]
    follow(browser, newest.find_element(By.XPATH, ".//button[normalize-space()='Delete']"))
    until(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, ".sessions li")) == before)


def test_chat_on_a_phone_keeps_the_answer_in_view(selene, browser, shots):
    """At 390 × 664 (a phone with its keyboard up) and 390 × 844: the composer is one line with
    the send button beside it, above the tab bar; the last line of a streamed answer is visible
    above the composer, in a conversation and in a thread's chat."""
    base, _ = selene
    try:
        for height in (664, 844):
            browser.set_window_size(390, height)
            for page in ["/app/chat", "thread"]:
                if page == "thread":
                    thread = api(base, "GET", "/api/threads")["threads"][0]
                    browser.get(base + f"/app/threads/{thread['id']}")
                else:
                    browser.get(base + page)
                    submit(browser, "New chat")
                for question in ["What's in my garden soil thread?", "And what about the compost for the tomatoes in the raised bed?"]:
                    ask(browser, question)
                # The page scrolls the answer into view: wait until it has come to rest above the composer.
                until(browser, lambda d: d.execute_script("""
                    var answers = document.querySelectorAll('#conversation > li.assistant');
                    return answers[answers.length - 1].getBoundingClientRect().bottom <= document.querySelector('form.composer').getBoundingClientRect().top + 1;"""))
                box = browser.execute_script("""
                    var r = function (el) { var b = el.getBoundingClientRect(); return {top: b.top, bottom: b.bottom, height: b.height, left: b.left, right: b.right}; };
                    var answers = document.querySelectorAll('#conversation > li.assistant');
                    var tabbar = document.querySelector('.tabbar');
                    return {answer: r(answers[answers.length - 1]), composer: r(document.querySelector('form.composer')),
                            send: r(document.querySelector('form.composer button[type=submit]')), box: r(document.getElementById('question')),
                            tabbar: r(tabbar), tabbarColor: getComputedStyle(tabbar).backgroundColor,
                            composerColor: getComputedStyle(document.querySelector('form.composer')).backgroundColor, height: window.innerHeight};""")
                where = f"{page} at 390 × {height}: {box}"
                assert box["answer"]["bottom"] <= box["composer"]["top"] + 1, "the answer's last line is under the composer: " + where
                assert box["answer"]["bottom"] > 0, "the answer is in view: " + where
                assert box["composer"]["bottom"] <= box["tabbar"]["top"] + 1, "the composer sits above the tab bar: " + where
                assert box["tabbar"]["bottom"] <= box["height"] + 1
                assert box["composer"]["height"] < 110, "one line, not a block: " + where
                assert abs(box["send"]["top"] - box["box"]["top"]) < 40 and box["send"]["left"] >= box["box"]["right"] - 1, "the button beside the box: " + where
                assert box["tabbarColor"] not in ("rgba(0, 0, 0, 0)", "transparent") and box["composerColor"] not in ("rgba(0, 0, 0, 0)", "transparent")
                browser.save_screenshot(os.path.join(shots, f"selene-{'thread' if page == 'thread' else 'chat'}-phone-{height}.png"))
    finally:
        browser.set_window_size(390, 844)


def test_cut_answer_kept_and_marked(selene, browser, shots):
    """The model breaks off mid-answer: what arrived stays on the page, marked as cut off, with the
    notes that match; after a reload it is still there and still marked."""
    base, stub = selene
    browser.get(base + "/app/chat")
    submit(browser, "New chat")
    stub.fault("cutStream")
    try:
        ask(browser, "What's in my garden soil thread, in short?")
    finally:
        stub.fault("none")
    cut = browser.find_elements(By.CSS_SELECTOR, "#conversation > li.assistant.incomplete")
    assert len(cut) == 1 and "cut off before the end" in cut[0].text and cut[0].find_element(By.CSS_SELECTOR, ".answer").text.startswith("From"), cut[0].text
    assert "broke off" in browser.page_source or "notes that match" in browser.page_source
    snap(browser, shots, "selene-chat-cut")
    browser.refresh()
    cut = browser.find_elements(By.CSS_SELECTOR, "#conversation > li.assistant.incomplete")
    assert len(cut) == 1 and "cut off before the end" in cut[0].text


def test_threads(selene, browser, shots):
    base, _ = selene
    browser.get(base + "/app/threads")
    name = api(base, "GET", "/api/threads")["threads"][0]["name"]
    row = browser.find_element(By.CSS_SELECTOR, "ul.list li")
    assert name in row.text and "Momentum" in row.text and "3 notes" in row.text
    snap(browser, shots, "selene-threads")
    follow(browser, row.find_element(By.CSS_SELECTOR, "a.title"))
    assert "/app/threads/" in browser.current_url
    assert "Buy compost for the garden bed tomatoes and garden soil" in browser.page_source
    assert len(browser.find_elements(By.XPATH, "//h2[normalize-space()='Notes']/following-sibling::ul[1]/li")) == 3
    submit(browser, "Suggest tasks")
    suggestion = browser.find_element(By.CSS_SELECTOR, "ul[aria-label='Suggested tasks'] li")
    title = suggestion.find_element(By.CSS_SELECTOR, "span").text
    assert title.startswith("Follow up on")
    follow(browser, suggestion.find_element(By.XPATH, ".//button[normalize-space()='Add']"))
    assert title in browser.find_element(By.CSS_SELECTOR, "ul.tasks").text
    states = ask(browser, "Where does the compost go?")
    assert "Writing…" in states, states
    assert browser.find_elements(By.CSS_SELECTOR, "#conversation a.cite")
    snap(browser, shots, "selene-thread")
    task = browser.find_element(By.CSS_SELECTOR, "ul.tasks li")
    done_title = task.find_element(By.CSS_SELECTOR, "span").text
    follow(browser, task.find_element(By.CSS_SELECTOR, "button"))
    until(browser, lambda d: any(done_title in li.text for li in d.find_elements(By.CSS_SELECTOR, "ul.tasks li.done")))


def test_briefing(selene, browser, shots):
    base, _ = selene
    browser.get(base + "/app/briefing")
    assert "Good morning" in browser.find_element(By.CSS_SELECTOR, ".briefing-text").text
    assert api(base, "GET", "/api/threads")["threads"][0]["name"] in browser.page_source
    for heading in ["Threads moving", "Links across threads", "Open tasks", "New notes (3)"]:
        assert browser.find_element(By.XPATH, f"//h2[normalize-space()='{heading}']")
    snap(browser, shots, "selene-briefing")
    submit(browser, "Write it again")
    assert "Good morning" in browser.page_source


KITCHEN = [
    "Kitchen herbs: basil, tomatoes and compost pots in the kitchen window",
    "Kitchen window herbs, basil pots, tomatoes, kitchen compost",
    "Basil and tomatoes in kitchen pots by the window with compost",
]


@pytest.fixture
def a_month_in():
    """A Selene a month in, with its own browser signed in: the garden thread and the kitchen
    thread, a note the person moved from one to the other (a link across threads), a garden note
    written six weeks ago and imported from Drafts today (worth another look) and an open task."""
    stub = Stub().up()
    server = Selene(SERVER_ENV(stub.url), token=TOKEN).start()
    driver = chromium()
    try:
        base = server.base
        written = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 45 * 86_400))
        old = api(base, "POST", "/webhook/api/drafts", {"content": "Last autumn: compost on the garden bed, garden soil rested, the tomatoes loved it",
                                                       "createdAt": written, "uuid": "0c0ffee0-0000-4000-8000-000000000001"})
        # One at a time, each processed before the next is written: which notes start a thread
        # depends on the order they are processed in, and on a loaded machine a model call that
        # times out puts its note back in the queue behind the others (CI once saw one thread).
        for text in GARDEN + KITCHEN:
            api(base, "POST", "/api/notes", {"content": text})
            processed(base)
        threads = {t["name"]: t["id"] for t in threads_when(base, lambda t: len(t) == 2)}
        assert len(threads) == 2, threads
        garden, kitchen = (next(i for n, i in threads.items() if word in n) for word in ("Garden", "Kitchen"))
        moved = next(n for n in api(base, "GET", "/api/notes?limit=50")["notes"] if n["content"] == GARDEN[2])
        api(base, "PUT", f"/api/notes/{moved['id']}/thread", {"threadId": kitchen})
        driver.get(base + "/app/signin")
        fill(driver, "token", TOKEN)
        submit(driver, "Sign in")
        yield base, driver, {"old": old["id"], "moved": moved["id"], "garden": garden, "kitchen": kitchen}
    finally:
        driver.quit()
        server.stop()
        stub.down()


def test_briefing_cards_lead_to_a_conversation(a_month_in, shots):
    """Each kind of card — a thread moving, a link across threads, a note worth another look, an
    open task — has "Ask about this", at phone and desktop widths: a conversation about the card's
    notes (listed above it), its question in the box; the streamed answer cites those notes."""
    base, browser, made = a_month_in
    for width, height in [(390, 844), (1440, 900)]:
        browser.set_window_size(width, height)
        browser.get(base + "/app/briefing")
        cards = [(li.get_attribute("class").split("card-")[-1].split()[0], li.find_element(By.CSS_SELECTOR, "a.ask-about").get_attribute("href"))
                 for li in browser.find_elements(By.CSS_SELECTOR, "ul.cards li.card-thread, ul.cards li.card-link, ul.cards li.card-resurfaced")]
        cards += [("task", a.get_attribute("href")) for a in browser.find_elements(By.CSS_SELECTOR, "ul.tasks.cards li a.ask-about")]
        kinds = {kind for kind, _ in cards}
        assert kinds == {"thread", "link", "resurfaced", "task"}, cards
        link = browser.find_element(By.CSS_SELECTOR, "ul.cards li.card-link")
        assert f"/app/notes/{made['moved']}" in link.get_attribute("innerHTML"), link.text
        resurfaced = browser.find_element(By.CSS_SELECTOR, "ul.cards li.card-resurfaced")
        assert "You wrote about this 6 weeks ago" in resurfaced.text, resurfaced.text
        if width == 390:
            snap(browser, shots, "selene-briefing-cards")
        for kind, href in cards:
            browser.get(href)
            about = browser.find_element(By.CSS_SELECTOR, ".about")
            seeded = {a.get_attribute("href").rsplit("/", 1)[-1] for a in about.find_elements(By.CSS_SELECTOR, "a[href*='/app/notes/']")}
            question = browser.find_element(By.ID, "question").get_attribute("value")
            assert seeded and question.endswith("?"), (kind, href, question)
            if kind == "resurfaced":
                assert seeded == {str(made["old"])}, seeded
            if kind == "link":
                assert str(made["moved"]) in seeded and len(seeded) == 2, seeded
            ask(browser, question)
            answer = browser.find_elements(By.CSS_SELECTOR, "#conversation > li.assistant")[-1]
            links = answer.find_elements(By.CSS_SELECTOR, "a.cite")
            cited = {a.get_attribute("href").rsplit("/", 1)[-1] for a in links}
            # The card's notes come first in what the model is given, so the answer's first citation
            # is one of them; notes the search found beside them may follow.
            assert links and links[0].get_attribute("href").rsplit("/", 1)[-1] in seeded, (kind, cited, seeded)
            # The answer is in view above the composer, whatever the width.
            assert browser.execute_script(
                "var a = arguments[0].getBoundingClientRect(), c = document.querySelector('.composer').getBoundingClientRect();"
                "return a.bottom <= c.top + 1;", answer), (kind, width)
    snap(browser, shots, "selene-briefing-card")


def test_memories(selene, browser, shots):
    base, _ = selene
    browser.get(base + "/app/chat")
    submit(browser, "New chat")
    ask(browser, "I prefer green tea in the morning. Anything about tomatoes?")
    browser.get(base + "/app/memories")
    box = browser.find_element(By.CSS_SELECTOR, "li.row textarea[name=content]")
    assert box.text == "I prefer green tea in the morning."
    snap(browser, shots, "selene-memories")
    box.clear()
    box.send_keys("I prefer sencha in the morning.")
    Select(browser.find_element(By.CSS_SELECTOR, "li.row select[name=type]")).select_by_value("preference")
    submit(browser, "Save")
    assert "Memory saved." in browser.page_source
    assert browser.find_element(By.CSS_SELECTOR, "li.row textarea[name=content]").text == "I prefer sencha in the morning."
    browser.execute_script("window.confirm = function () { return true; }")
    submit(browser, "Delete")
    assert "No memories yet" in browser.page_source
    # Told by hand: the form at the top keeps it, at full confidence.
    fill(browser, "content", "I'm vegetarian.")
    submit(browser, "Remember")
    assert "Remembered." in browser.page_source
    assert [m["content"] for m in api(base, "GET", "/api/memories")["memories"]] == ["I'm vegetarian."]
    # "Remember this" on an answer: the form filled with its words.
    browser.get(base + "/app/chat")
    follow(browser, browser.find_elements(By.CSS_SELECTOR, "#conversation li.assistant a.remember")[-1])
    assert "/app/memories?" in browser.current_url
    assert browser.find_element(By.ID, "remember").get_attribute("value").startswith("From your notes:")
    api(base, "DELETE", f"/api/memories/{api(base, 'GET', '/api/memories')['memories'][0]['id']}")


def test_search_devices_status(selene, browser, shots):
    base, _ = selene
    browser.get(base + "/app/search?q=garden+compost")
    results = browser.find_elements(By.CSS_SELECTOR, "ul.list li")
    assert len(results) == 3 and "words and meaning" in browser.page_source
    snap(browser, shots, "selene-search")
    api(base, "POST", "/api/devices/register", {"token": "ab" * 32})
    browser.get(base + "/app/devices")
    assert "Push to phones is off: no APNs key is configured" in browser.page_source and "abababababab" in browser.page_source
    snap(browser, shots, "selene-devices")
    browser.execute_script("window.confirm = function () { return true; }")
    submit(browser, "Remove")
    assert "No devices" in browser.page_source
    browser.get(base + "/app/status")
    assert "Available: stub-chat" in browser.page_source
    snap(browser, shots, "selene-status")
    browser.get(base + "/app/outbound")
    assert "to 127.0.0.1:" in browser.find_element(By.ID, "outbound-summary").text
    # Each entry's moment in the reader's own time zone (the page writes UTC; its script localises it).
    moments = browser.find_elements(By.CSS_SELECTOR, "#main time[data-local=full], main time[data-local=full]")
    assert moments and all("UTC" not in m.text and m.get_attribute("title") for m in moments), [m.text for m in moments]
    snap(browser, shots, "selene-outbound")


def test_notes_browse_edit_delete(selene, browser, shots):
    """The Notes page: newest first, filtered by thread and kind, paged; a note corrected from its
    page (and worked out again) and deleted (gone from the list and the API); the Tasks page with
    a task of a note in no thread, ticked off."""
    base, _ = selene
    browser.get(base + "/app/more")
    follow(browser, browser.find_element(By.LINK_TEXT, "Notes"))
    assert browser.current_url.endswith("/app/notes")
    titles = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#notes > li a.title")]
    assert all(any(t.startswith(g[:20]) for t in titles) for g in GARDEN), titles
    snap(browser, shots, "selene-notes")
    # Filtered by the garden thread: its notes only.
    thread = api(base, "GET", "/api/threads")["threads"][0]
    Select(browser.find_element(By.ID, "thread")).select_by_visible_text(thread["name"])
    submit(browser, "Show")
    rows = browser.find_elements(By.CSS_SELECTOR, "#notes > li")
    assert len(rows) == thread["noteCount"] and all(thread["name"] in r.text for r in rows)
    browser.get(base + "/app/notes?type=bogus")
    assert "type must be one of" in browser.find_element(By.CSS_SELECTOR, ".flash.error").text
    browser.get(base + "/app/notes?from=2999-01-01")
    assert "No notes here" in browser.page_source

    # Corrected from its page: new words, title and tags; Selene works it out again.
    note = api(base, "POST", "/api/notes", {"content": "Call the plumber about the sink"})
    processed(base)
    browser.get(base + f"/app/notes/{note['id']}")
    follow(browser, browser.find_element(By.LINK_TEXT, "Edit"))
    snap(browser, shots, "selene-note-edit")
    fill(browser, "content", "  ")
    submit(browser, "Save")
    assert "content must not be empty" in browser.find_element(By.CSS_SELECTOR, ".flash.error").text
    assert api(base, "GET", f"/api/notes/{note['id']}")["content"] == "Call the plumber about the sink"
    fill(browser, "title", "Plumber")
    fill(browser, "content", "Call the plumber about the kitchen sink and the dripping tap")
    fill(browser, "tags", "home, #urgent")
    submit(browser, "Save")
    assert "work out what it's about again" in browser.page_source
    assert "kitchen sink" in browser.find_element(By.CSS_SELECTOR, "pre.note").text
    stored = api(base, "GET", f"/api/notes/{note['id']}")
    assert stored["title"] == "Plumber" and stored["tags"] == ["home", "urgent"]
    processed(base)
    assert api(base, "GET", f"/api/notes/{note['id']}")["status"] == "done"

    # Whom and where a note names, as read by the model (the stand-in: a name after "to" is a place).
    named = api(base, "POST", "/api/notes", {"content": "Long walk with Omar to Greenwich market, then tea by the river"})
    processed(base)
    browser.get(base + f"/app/notes/{named['id']}")
    facts = {dt.text: dt.find_element(By.XPATH, "following-sibling::dd[1]").text for dt in browser.find_elements(By.CSS_SELECTOR, "dl dt")}
    assert facts.get("People") == "Omar" and facts.get("Places") == "Greenwich", facts
    snap(browser, shots, "selene-note-names")

    # The note asks for something: it is on the Tasks page, in no thread, and is ticked off there.
    browser.get(base + "/app/more")
    follow(browser, browser.find_element(By.LINK_TEXT, "Tasks"))
    api(base, "POST", "/api/notes", {"content": "TODO: book the chimney sweep"})
    processed(base)
    browser.refresh()
    row = browser.find_element(By.XPATH, "//ul[contains(@class,'tasks')]/li[contains(., 'Book the chimney sweep')]")
    assert "no thread" in row.text and "from" in row.text
    snap(browser, shots, "selene-tasks")
    press(browser, row.find_element(By.XPATH, ".//button[normalize-space()='✓']"))
    assert browser.current_url.endswith("/app/tasks")
    until(browser, lambda d: "Book the chimney sweep" in d.find_element(
        By.XPATH, "//h2[normalize-space()='Done lately']/following-sibling::ul[1]").text)
    assert [t["status"] for t in api(base, "GET", "/api/tasks")["tasks"] if t["title"] == "Book the chimney sweep"] == ["done"]

    # Deleted from its page.
    browser.get(base + f"/app/notes/{note['id']}")
    browser.execute_script("window.confirm = function () { return true; }")
    submit(browser, "Delete")
    assert browser.current_url.split("?")[0].endswith("/app/notes") and "Note deleted." in browser.page_source
    assert "Plumber" not in [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#notes > li a.title")]
    with pytest.raises(urllib.error.HTTPError) as missing:
        api(base, "GET", f"/api/notes/{note['id']}")
    assert missing.value.code == 404

    # Paged, 30 a page, newest first.
    for i in range(31):
        api(base, "POST", "/api/notes", {"content": f"Paging note {i:02d}"})
    browser.get(base + "/app/notes")
    first = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#notes > li a.title")]
    assert len(first) == 30 and first[0] == "Paging note 30"
    follow(browser, browser.find_element(By.LINK_TEXT, "Older"))
    second = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#notes > li a.title")]
    assert second and not set(first) & set(second) and "page=1" in browser.current_url
    assert browser.find_element(By.LINK_TEXT, "Newer")


def test_voice_off_until_chosen_then_local(selene, browser, shots):
    """Voice input is off until chosen; the choices say where the audio goes; "on this server"
    records with the (fake) microphone and the words come back from the server's own
    speech-to-text."""
    base, _ = selene
    browser.delete_cookie("selene_voice")
    browser.get(base + "/app/notes/new")
    assert not browser.find_element(By.CSS_SELECTOR, ".mic").is_displayed()
    browser.get(base + "/app/more")
    follow(browser, browser.find_element(By.LINK_TEXT, "Voice input"))
    page = browser.find_element(By.TAG_NAME, "main").text
    assert "may send your audio to its vendor" in page and "never leaves your machine" in page and "stub-whisper" in page
    assert browser.find_element(By.CSS_SELECTOR, "input[value=off]").is_selected()
    snap(browser, shots, "selene-voice")
    click(browser, browser.find_element(By.CSS_SELECTOR, "input[value=server]"))
    submit(browser, "Save")
    assert browser.find_element(By.CSS_SELECTOR, "input[value=server]").is_selected()
    browser.get(base + "/app/notes/new")
    fill(browser, "content", "Dictated:")
    mic = browser.find_element(By.CSS_SELECTOR, ".mic")
    assert mic.is_displayed() and mic.get_attribute("data-voice") == "server"
    click(browser, mic)
    until(browser, lambda d: "Stop" in d.find_element(By.CSS_SELECTOR, ".mic").text)
    # Recording until the fake microphone has given more than a few bytes (the page counts them).
    until(browser, lambda d: int(d.find_element(By.CSS_SELECTOR, ".mic").get_attribute("data-recorded") or 0) > 2000, 20)
    click(browser, browser.find_element(By.CSS_SELECTOR, ".mic"))
    until(browser, lambda d: "Transcribed" in d.find_element(By.ID, "content").get_attribute("value"), 20)
    words = browser.find_element(By.ID, "content").get_attribute("value")
    assert words.startswith("Dictated: Transcribed ") and words.endswith(" bytes with stub-whisper"), words
    assert int(words.split()[2]) > 1000, words
    # Forged: the CSRF token is required.
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in browser.get_cookies())
    forged = urllib.request.Request(base + "/app/transcribe", method="POST", data=b"AAAA",
                                    headers={"Cookie": cookies, "Content-Type": "audio/webm", "X-CSRF-Token": "forged"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(forged, timeout=30)
    assert refused.value.code == 403
    # The browser's recognition: chosen knowingly, then off again.
    browser.get(base + "/app/voice")
    click(browser, browser.find_element(By.CSS_SELECTOR, "input[value=browser]"))
    submit(browser, "Save")
    browser.get(base + "/app/chat")
    assert browser.find_element(By.CSS_SELECTOR, ".mic").get_attribute("data-voice") == "browser"
    browser.get(base + "/app/voice")
    click(browser, browser.find_element(By.CSS_SELECTOR, "input[value=off]"))
    submit(browser, "Save")
    assert "Voice input is off." in browser.page_source


def test_installable_app_web_push_and_offline(selene, browser, shots):
    """The installable web app: its manifest; the service worker registers and controls the
    pages; turning notifications on sends the subscription to the server, and a notification
    reaches the push service encrypted and VAPID-signed (decrypted there); pages opened lately
    are read offline, and a note captured offline is kept and sent when the network is back."""
    from pushservice import PushService
    base, _ = selene
    manifest = json.loads(urllib.request.urlopen(base + "/app/manifest.webmanifest", timeout=10).read())
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/app/chat" and manifest["icons"][0]["src"].startswith("data:image/svg+xml,")
    browser.get(base + "/app/more")
    follow(browser, browser.find_element(By.LINK_TEXT, "Devices"))
    scope = browser.execute_async_script("var done = arguments[0]; navigator.serviceWorker.ready.then(function (r) { done(r.scope + ' ' + r.active.scriptURL); });")
    assert scope == f"{base}/app/ {base}/app/sw.js", scope
    service = PushService()
    try:
        # Headless Chromium has no push service to reach offline: the page's subscription is
        # stood in for (the browser's half), and everything after it is the real thing.
        browser.execute_script("""
            var sub = arguments[0];
            Notification.requestPermission = function () { return Promise.resolve('granted'); };
            PushManager.prototype.subscribe = function (options) {
              window.__serverKey = btoa(String.fromCharCode.apply(null, new Uint8Array(options.applicationServerKey)));
              return Promise.resolve({ toJSON: function () { return sub; } });
            };""", service.subscription)
        snap(browser, shots, "selene-devices")
        button = browser.find_element(By.ID, "web-push-on")
        assert button.is_displayed()
        click(browser, button)
        until(browser, lambda d: "Notifications are on in this browser." in d.page_source)
        devices = api(base, "GET", "/api/devices")["devices"]
        assert [d["platform"] for d in devices] == ["web"] and devices[0]["token"] == service.subscription["endpoint"]
        submit(browser, "Send a test notification")
        assert "Sent to 1 of 1 device." in browser.page_source
        assert not service.errors, service.errors
        assert [m["payload"] for m in service.received] == [{"title": "Selene", "body": "Notifications reach this device.", "url": "/app/devices", "tag": "test"}]
        key = json.loads(urllib.request.urlopen(urllib.request.Request(base + "/app/push/key", headers={
            "Cookie": "; ".join(f"{c['name']}={c['value']}" for c in browser.get_cookies())}), timeout=10).read())["publicKey"]
        assert service.received[0]["server_key"] == key
    finally:
        service.stop()
        for device in api(base, "GET", "/api/devices")["devices"]:
            api(base, "POST", "/api/devices/unregister", {"token": device["token"]}) if device["platform"] != "web" else None

    # Offline: a note opened lately is read from the worker's copy; a capture waits for the network.
    note = api(base, "POST", "/api/notes", {"content": "Offline reading: the ferry timetable for Saturday"})
    browser.get(base + f"/app/notes/{note['id']}")
    browser.get(base + "/app/notes/new")
    until(browser, lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
    # DevTools' offline switch doesn't reach the service worker's own fetches: the server goes.
    stop_server()
    try:
        browser.get(base + f"/app/notes/{note['id']}")
        assert "ferry timetable" in browser.find_element(By.CSS_SELECTOR, "pre.note").text
        assert "Selene isn\u2019t answering: this is the page as last seen" in browser.find_element(By.ID, "kept-copy-note").text
        browser.get(base + "/app/threads/999999")
        assert "You're offline" in browser.page_source
        browser.get(base + "/app/notes/new")
        # The server is unreachable but the browser still says it is online (away from home, one
        # bar of signal): the capture fails, and the words are kept, not lost.
        assert browser.execute_script("return navigator.onLine") is True
        fill(browser, "content", "Written on the ferry without a signal")
        click(browser, browser.find_element(By.XPATH, "//button[normalize-space()='Save']"))
        until(browser, lambda d: "kept in this browser" in d.page_source)
        assert "can't be reached" in browser.find_element(By.ID, "outbox-kept").text
        snap(browser, shots, "selene-offline-capture")
        # And one written while the browser knows it is offline.
        browser.execute_script("Object.defineProperty(navigator, 'onLine', { get: function () { return false; } });")
        fill(browser, "content", "Second note from the ferry")
        click(browser, browser.find_element(By.XPATH, "//button[normalize-space()='Save']"))
        until(browser, lambda d: "2 waiting" in d.page_source)
    finally:
        restart_server()
    # Selene answers again: the page still open sends them by itself (no "online" event comes).
    until(browser, lambda d: d.find_elements(By.ID, "outbox-sent"), seconds=40)
    contents = [n["content"] for n in api(base, "GET", "/api/notes?limit=100")["notes"]]
    assert contents.count("Written on the ferry without a signal") == 1 and contents.count("Second note from the ferry") == 1, contents
    assert browser.execute_script("return localStorage.getItem('selene-outbox')") == "[]"


def test_without_javascript(selene):
    """Every page works without JavaScript: the answer comes with the page."""
    base, _ = selene
    driver = chromium("--blink-settings=scriptEnabled=false")
    try:
        driver.get(base + "/app/signin")
        fill(driver, "token", TOKEN)
        submit(driver, "Sign in")
        submit(driver, "New chat")
        fill(driver, "question", "What about garden soil?")
        submit(driver, "Ask")
        answer = driver.find_elements(By.CSS_SELECTOR, "#conversation > li.assistant")[-1]
        assert "From your notes:" in answer.text and answer.find_elements(By.CSS_SELECTOR, "a.cite")
        assert driver.find_element(By.CSS_SELECTOR, ".mic").get_attribute("hidden") is not None
    finally:
        driver.quit()


def test_first_start_signs_in_with_the_printed_link(browser, shots):
    """As the README starts it (no SELENE_API_TOKEN): Selene makes a token, prints the web app's
    sign-in link once, and the link signs the browser in; without it the notes stay closed."""
    data = tempfile.mkdtemp(prefix="selene-first-")
    port = free_port()
    server = subprocess.Popen([binary("selene", "SELENE_SERVER_BIN"), "serve", "--port", str(port)],
                              env=dict(os.environ, SELENE_DATA_DIR=data, SELENE_OLLAMA_URL="off", LOG_LEVEL="warning"),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        link = None
        deadline = time.time() + 120
        while link is None and time.time() < deadline:
            line = server.stderr.readline()
            if not line:
                break
            if "/app/signin?token=" in line:
                link = line.split("open", 1)[1].strip()
        assert link and link.startswith(base + "/app/signin?token="), link
        wait_for(base + "/health", server)
        token = open(os.path.join(data, "api-token")).read().strip()
        assert link.endswith(token)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base + "/api/notes", timeout=10)
        assert refused.value.code == 401
        browser.delete_all_cookies()
        browser.get(base + "/")
        assert "/app/signin" in browser.current_url and "token=" not in browser.current_url
        browser.get(link)
        assert "/app/chat" in browser.current_url and "token=" not in browser.current_url, browser.current_url
        snap(browser, shots, "selene-first-start")
        api(base, "POST", "/api/notes", {"content": "the safe code is 4711"}, token=token)
        browser.get(base + "/app/notes")
        assert "4711" in browser.page_source
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(data, ignore_errors=True)


def test_hosted_model_asks_before_it_sees_notes(selene, browser, shots):
    """SELENE_HOSTED_PERSONAL=on: the first question about the notes is answered here, and the chat
    says where to see exactly what the hosted model would receive; only a yes there lets it go."""
    _, stub = selene
    env = dict(SERVER_ENV(stub.url), SELENE_HOSTED_URL=stub.url + "/v1", SELENE_HOSTED_MODEL="stub-chat", SELENE_HOSTED_PERSONAL="on")
    server = Selene(env, token=TOKEN).start()
    base = server.base
    try:
        browser.delete_all_cookies()
        browser.get(base + f"/app/signin?token={TOKEN}")
        api(base, "POST", "/api/notes", {"content": "The allotment key is under the blue pot"})
        processed(base)
        browser.get(base + "/app/chat")
        ask(browser, "Where is the allotment key?")
        notice = browser.find_element(By.ID, "hosted-waiting")
        assert not any(e["purpose"] == "hosted" for e in api(base, "GET", "/api/outbound")["entries"])
        follow(browser, notice.find_element(By.TAG_NAME, "a"))
        assert browser.current_url.endswith("/app/hosted")
        prompts = " ".join(p.text for p in browser.find_elements(By.CSS_SELECTOR, "pre.prompt"))
        assert "The allotment key is under the blue pot" in prompts and "Where is the allotment key?" in prompts
        snap(browser, shots, "selene-hosted-waiting")
        submit(browser, "Yes, send them")
        until(browser, lambda d: "now go to the hosted model" in d.page_source)
        assert api(base, "GET", "/api/hosted/consent")["state"] == "allowed"
        browser.get(base + "/app/chat")
        ask(browser, "Where is the allotment key?")
        assert not browser.find_elements(By.ID, "hosted-waiting")
        sent = [e for e in api(base, "GET", "/api/outbound")["entries"] if e["purpose"] == "hosted"]
        assert sent and sent[0]["noteDerived"] and "you said yes" in sent[0]["reason"]
    finally:
        server.stop()


def test_setup_screen_with_tokens_off(browser, shots):
    """SELENE_API_TOKEN=off (loopback only) opens on the set-up screen."""
    server = Selene({"SELENE_OLLAMA_URL": "off", "LOG_LEVEL": "warning"}, token="off").start()
    base = server.base
    try:
        browser.delete_all_cookies()
        browser.get(base + "/")
        assert browser.current_url.endswith("/app/setup")
        assert "only answers on this computer" in browser.page_source and "SELENE_API_TOKEN=" in browser.page_source
        snap(browser, shots, "selene-setup")
        submit(browser, "Continue on this computer")
        assert "/app/chat/" in browser.current_url
        browser.get(base + "/app/status")
        assert "Not available" in browser.page_source
    finally:
        server.stop()


def test_signing_out_leaves_nothing_to_read(selene, shots):
    """The next person on the device: signed in, a note read (the worker keeps a copy), then
    "Sign out". With Selene unreachable afterwards, opening the note's address shows nothing of
    it; the worker's copies are gone. A note kept in the browser while Selene couldn't be reached
    is asked about before signing out. And a note kept that way is sent from any page of the app
    once Selene answers, not only from the capture page."""
    base, _ = selene
    driver = chromium()
    try:
        driver.get(base + f"/app/signin?token={TOKEN}")
        note = api(base, "POST", "/api/notes", {"content": "The locker code is 8812"})
        driver.get(base + f"/app/notes/{note['id']}")
        driver.execute_async_script("var done = arguments[0]; navigator.serviceWorker.ready.then(function () { done(true); });")
        driver.get(base + "/app/notes/new")  # kept, to write in while Selene is away
        until(driver, lambda d: d.execute_script("return !!navigator.serviceWorker.controller"), seconds=30)
        driver.get(base + f"/app/notes/{note['id']}")
        assert "8812" in driver.find_element(By.CSS_SELECTOR, "pre.note").text
        until_kept(driver, [f"/app/notes/{note['id']}"])
        kept = ("var done = arguments[0]; caches.keys().then(function (names) { return Promise.all(names.map(function (n) {"
                " return caches.open(n).then(function (c) { return c.keys(); }).then(function (k) { return k.map(function (r) { return r.url; }); }); })); })"
                ".then(function (lists) { done([].concat.apply([], lists)); });")
        assert any(u.endswith(f"/app/notes/{note['id']}") for u in driver.execute_async_script(kept))

        # A note written while Selene can't be reached, then "Sign out": asked first.
        stop_server()
        try:
            driver.get(base + "/app/notes/new")
            fill(driver, "content", "Written while away")
            click(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Save']"))
            until(driver, lambda d: "kept in this browser" in d.page_source)
        finally:
            restart_server()
        # Selene answers again; the notes list (no capture form on it) sends the kept note.
        driver.get(base + "/app/notes")
        assert not driver.find_elements(By.CSS_SELECTOR, "form[action='/app/notes/new']")
        until(driver, lambda d: d.execute_script("return localStorage.getItem('selene-outbox')") == "[]", seconds=40)
        assert any(n["content"] == "Written while away" for n in api(base, "GET", "/api/notes?limit=100")["notes"])

        driver.get(base + "/app/more")
        driver.execute_script("localStorage.setItem('selene-outbox', JSON.stringify([{content: 'not yet saved', captureId: 'x'}]))")
        click(driver, driver.find_element(By.XPATH, "//button[normalize-space()='Sign out']"))
        alert = WebDriverWait(driver, 5).until(lambda d: d.switch_to.alert)
        assert "1 note written while Selene couldn\u2019t be reached hasn\u2019t been saved yet" in alert.text, alert.text
        alert.dismiss()
        assert driver.current_url == base + "/app/more"
        driver.execute_script("localStorage.removeItem('selene-outbox')")

        submit(driver, "Sign out")
        until(driver, lambda d: "/app/signin" in d.current_url)
        until(driver, lambda d: not any("/app/notes/" in u for u in d.execute_async_script(kept)))
        stop_server()
        try:
            driver.get(base + f"/app/notes/{note['id']}")
            assert "8812" not in driver.page_source
            snap(driver, shots, "selene-signed-out-offline")
        finally:
            restart_server()
    finally:
        driver.quit()


def test_keyboard_only(selene, shots):
    """Someone who uses only a keyboard: signs in with the token, captures a note and asks a
    question with Tab, typing and Enter — every stop on the way showing where the focus is."""
    base, _ = selene
    driver = chromium()
    try:
        driver.set_window_size(*SIZES["desktop"])
        driver.get(base + "/app/signin")
        tab_to(driver, lambda e: e.get_attribute("name") == "token", what="the token field")
        keys(driver, TOKEN, Keys.ENTER)
        until(driver, lambda d: "/app/chat/" in d.current_url)

        tab_to(driver, lambda e: e.tag_name == "a" and e.text.strip() == "More", what="More")
        keys(driver, Keys.ENTER)
        until(driver, lambda d: d.current_url.endswith("/app/more"))
        tab_to(driver, lambda e: e.tag_name == "a" and e.text.strip() == "Capture a note", what="Capture a note")
        keys(driver, Keys.ENTER)
        until(driver, lambda d: d.current_url.endswith("/app/notes/new"))
        tab_to(driver, lambda e: e.get_attribute("name") == "content", what="the note")
        keys(driver, "Typed with keys alone: the quince tree needs pruning in February")
        tab_to(driver, lambda e: e.tag_name == "button" and e.text.strip() == "Save", what="Save")
        keys(driver, Keys.ENTER)
        until(driver, lambda d: "quince tree" in d.find_element(By.TAG_NAME, "main").text and "/app/notes/new" not in d.current_url)

        tab_to(driver, lambda e: e.tag_name == "a" and e.text.strip() == "Chat", what="Chat")
        keys(driver, Keys.ENTER)
        until(driver, lambda d: "/app/chat" in d.current_url and d.find_elements(By.ID, "question"))
        count = len(driver.find_elements(By.CSS_SELECTOR, "#conversation > li"))
        tab_to(driver, lambda e: e.get_attribute("id") == "question", what="the question")
        keys(driver, "When does the quince tree need pruning?")
        tab_to(driver, lambda e: e.tag_name == "button" and e.text.strip() == "Ask", what="Ask")
        keys(driver, Keys.ENTER)
        until(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#conversation > li")) >= count + 2
                                and d.find_element(By.ID, "progress").text == "", 30)
        answer = driver.find_elements(By.CSS_SELECTOR, "#conversation > li")[-1].text
        assert answer.strip(), "an answer was shown"
        snap(driver, shots, "selene-keyboard-chat")
    finally:
        driver.quit()
