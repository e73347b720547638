"""Browser tests of the Stitchuation web app in real headless Chromium (Selenium).

Starts the real server binary (STITCH_SERVER_BIN, default .build/debug/stitchuation) on a free
local port with a temporary data directory, walks through the product as a needlepointer would,
and screenshots each key page at phone, tablet and desktop sizes into SCREENSHOT_DIR
(default test-artifacts/screenshots)."""
import base64
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import urllib.request

import pytest
from conftest import SIZES, StitchServer, centre_of, chromium, click, fill, follow, keys, loaded, pinch_out, press, retype, snap, stitch_server, submit, tab_to, touch, until_kept
from harness import binary
from harness.fixtures import OWNED_BARCODE, UNKNOWN_BARCODE, made
from harness.images import png
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


@pytest.fixture(scope="module")
def server():
    yield from stitch_server()


@pytest.fixture(scope="module")
def photos():
    folder = tempfile.mkdtemp(prefix="stitch-photos-")
    paths = []
    # The same picture three times (the restore test counts it stored once), big enough to pinch and swipe.
    picture = png(360, 270, lambda x, y: (196, 112, 75))
    for name, data in [("canvas.png", picture), ("one.png", picture), ("two.png", picture)]:
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(data)
        paths.append(path)
    yield paths
    shutil.rmtree(folder, ignore_errors=True)


def rows(driver):
    return [" ".join(r.get_attribute("textContent").split()) for r in driver.find_elements(By.CSS_SELECTOR, "#threads .row .title")]


def test_sign_up(server, browser, shots):
    browser.get(server + "/")
    assert "Your craft companion" in browser.page_source
    snap(browser, shots, "signin")
    browser.get(server + "/app/signup")
    assert browser.find_element(By.LINK_TEXT, "I already have an account")
    fill(browser, "displayName", "Ann")
    fill(browser, "email", "ann@example.com")
    fill(browser, "password", "short")
    browser.execute_script("document.querySelector('input[name=password]').removeAttribute('minlength')")
    submit(browser, "Create account")
    assert "at least 8 characters" in browser.page_source
    fill(browser, "password", "correct horse")
    submit(browser, "Create account")
    assert "No threads yet" in browser.page_source
    assert "Tap + to add your first thread" in browser.page_source
    snap(browser, shots, "inventory-empty")


def test_add_threads_in_batch(server, browser, shots):
    browser.get(server + "/app/inventory/new")
    fill(browser, "brand", "DMC")
    fill(browser, "number", "310")
    fill(browser, "colorName", "Black")
    fill(browser, "colorHex", "#000000")
    fill(browser, "quantity", "2")
    assert browser.find_element(By.NAME, "addAnother").is_selected()
    submit(browser, "Add thread")
    assert "Added DMC 310" in browser.page_source
    assert browser.find_element(By.NAME, "brand").get_attribute("value") == "DMC"
    assert browser.find_element(By.NAME, "number").get_attribute("value") == ""
    fill(browser, "number", "10")
    fill(browser, "quantity", "1")
    submit(browser, "Add thread")
    assert browser.find_element(By.NAME, "brand").get_attribute("value") == "DMC"
    # Autocomplete offers the brands already used.
    options = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#brands option")]
    assert options == ["DMC"]
    snap(browser, shots, "add-thread")
    fill(browser, "brand", "Appleton")
    fill(browser, "number", "992")
    fill(browser, "quantity", "0")
    click(browser, browser.find_element(By.NAME, "addAnother"))
    submit(browser, "Add thread")
    assert rows(browser) == ["Appleton 992", "DMC 10", "DMC 310"]
    assert browser.find_elements(By.CSS_SELECTOR, "#threads .swatch")[0].get_attribute("textContent") == "?"
    snap(browser, shots, "inventory")


def test_stepper(server, browser):
    browser.get(server + "/app/inventory")
    row = browser.find_element(By.XPATH, "//li[.//a[normalize-space()='DMC 310']]")
    click(browser, row.find_element(By.XPATH, ".//button[contains(@aria-label,'One more')]"))
    WebDriverWait(browser, 5).until(lambda d: row.find_element(By.CSS_SELECTOR, "output").get_attribute("textContent") == "3")
    assert browser.current_url.endswith("/app/inventory")  # no reload happened
    row10 = browser.find_element(By.XPATH, "//li[.//a[normalize-space()='DMC 10']]")
    click(browser, row10.find_element(By.XPATH, ".//button[contains(@aria-label,'One less')]"))
    WebDriverWait(browser, 5).until(lambda d: row10.find_element(By.CSS_SELECTOR, "output").get_attribute("textContent") == "0")
    WebDriverWait(browser, 5).until(lambda d: not row10.find_element(By.XPATH, ".//button[contains(@aria-label,'One less')]").is_enabled())
    browser.refresh()
    row10 = browser.find_element(By.XPATH, "//li[.//a[normalize-space()='DMC 10']]")
    assert row10.find_element(By.CSS_SELECTOR, "output").get_attribute("textContent") == "0"
    # Search and filters.
    browser.get(server + "/app/inventory?q=black")
    assert rows(browser) == ["DMC 310"]


def test_add_canvas_with_photo(server, browser, shots, photos):
    browser.get(server + "/app/stash")
    assert "No canvases yet" in browser.page_source
    browser.get(server + "/app/stash/new")
    browser.find_element(By.NAME, "image").send_keys(photos[0])
    fill(browser, "designer", "Melissa Shirley")
    fill(browser, "designName", "Nutcracker")
    fill(browser, "meshCount", "0")
    browser.execute_script("document.querySelector('input[name=meshCount]').removeAttribute('min')")
    submit(browser, "Add canvas")
    assert "Enter a positive number" in browser.page_source
    browser.find_element(By.NAME, "image").send_keys(photos[0])
    fill(browser, "meshCount", "18")
    fill(browser, "size", "13x18")
    fill(browser, "acquiredAt", "06/01/2025")
    submit(browser, "Add canvas")
    assert "Nutcracker" in browser.find_element(By.TAG_NAME, "h1").text
    hero = browser.find_element(By.CSS_SELECTOR, "img.hero")
    WebDriverWait(browser, 5).until(lambda d: d.execute_script("return arguments[0].naturalWidth", hero) > 0)
    assert "13x18" in browser.page_source and "18" in browser.page_source
    snap(browser, shots, "canvas-detail")
    browser.get(server + "/app/stash")
    assert browser.find_element(By.CSS_SELECTOR, ".badge.mesh").get_attribute("textContent") == "18m"
    snap(browser, shots, "stash")


def test_start_project_and_journal(server, browser, shots, photos):
    browser.get(server + "/app/projects")
    assert "No projects yet" in browser.page_source
    browser.get(server + "/app/projects/start")
    submit(browser, "Start")
    assert browser.find_element(By.CSS_SELECTOR, ".split-detail .badge.wip").text == "WIP"
    project_url = browser.current_url
    browser.find_element(By.ID, "f-entry-notes").send_keys("Started the sky in basketweave")
    browser.find_element(By.NAME, "images").send_keys(photos[1] + "\n" + photos[2])
    submit(browser, "Add entry")
    cards = browser.find_elements(By.CSS_SELECTOR, "#entries .card")
    assert len(cards) == 1 and "basketweave" in cards[0].get_attribute("textContent")
    assert len(cards[0].find_elements(By.CSS_SELECTOR, ".grid img")) == 2
    press(browser, cards[0].find_elements(By.CSS_SELECTOR, ".grid a")[0])
    assert browser.find_element(By.CSS_SELECTOR, ".counter").text == "1 of 2"
    photo = browser.find_element(By.ID, "photo")
    WebDriverWait(browser, 5).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", photo) == 360)
    webdriver.ActionChains(browser).double_click(photo).perform()
    assert "zoomed" in photo.get_attribute("class")
    snap(browser, shots, "photo-viewer")
    webdriver.ActionChains(browser).double_click(photo).perform()
    assert "zoomed" not in photo.get_attribute("class")
    # On a phone: two fingers spread apart zoom in (the pattern viewer's zoom), then unzoomed a
    # sideways swipe goes to the next photo.
    stage = browser.find_element(By.ID, "photo-stage")
    cx, cy = centre_of(browser, stage)
    pinch_out(browser, cx, cy, 20, 5)
    assert float(stage.get_attribute("data-scale")) > 1.5 and "zoomed" in photo.get_attribute("class")
    webdriver.ActionChains(browser).double_click(photo).perform()
    assert float(stage.get_attribute("data-scale")) == 1
    page = browser.find_element(By.TAG_NAME, "html")
    touch(browser, "touchStart", [(cx + 100, cy)])
    for step in range(1, 9):
        touch(browser, "touchMove", [(cx + 100 - 25 * step, cy + step)])
    touch(browser, "touchEnd", [])
    loaded(browser, page)
    assert browser.find_element(By.CSS_SELECTOR, ".counter").text == "2 of 2"
    # Starting again offers nothing: the spec's empty state.
    browser.get(server + "/app/projects/start")
    assert "All canvases are already linked to projects. Add a new canvas first." in browser.page_source
    browser.get(project_url)
    Select(browser.find_element(By.NAME, "status")).select_by_value("at_finishing")
    submit(browser, "Change status")
    assert browser.find_element(By.CSS_SELECTOR, ".split-detail .badge.at_finishing").text == "At Finishing"
    Select(browser.find_element(By.NAME, "status")).select_by_value("wip")
    submit(browser, "Change status")


def test_requirements_readiness_and_shopping(server, browser, shots):
    browser.get(server + "/app/projects")
    press(browser, browser.find_element(By.CSS_SELECTOR, "#projects a.title"))
    project_url = browser.current_url
    click(browser, browser.find_element(By.XPATH, "//summary[normalize-space()='Add a section']"))
    fill(browser, "name", "Border")
    submit(browser, "Add section")
    click(browser, browser.find_element(By.XPATH, "//summary[normalize-space()='Add a thread requirement']"))
    Select(browser.find_element(By.NAME, "threadId")).select_by_visible_text("DMC 310 · Black")
    fill(browser, "quantityNeeded", "5")
    Select(browser.find_element(By.NAME, "sectionId")).select_by_visible_text("Border")
    submit(browser, "Add requirement")
    row = browser.find_element(By.CSS_SELECTOR, "tr[data-requirement]")
    assert row.find_element(By.CSS_SELECTOR, ".have").text == "3"
    assert row.find_element(By.CSS_SELECTOR, ".buy").text == "2"
    assert browser.find_element(By.ID, "readiness-summary").get_attribute("data-color") == "red"
    # A thread is edited on a page of its own (the row carries a link, no fields), and back.
    assert row.find_elements(By.CSS_SELECTOR, "input:not([type=hidden]), select, textarea") == []
    follow(browser, row.find_element(By.CSS_SELECTOR, "a.edit-link"))
    assert browser.find_element(By.NAME, "quantityNeeded").get_attribute("value") == "5"
    fill(browser, "notes", "Two plies, tent stitch")
    snap(browser, shots, "requirement-edit")
    submit(browser, "Save")
    assert browser.current_url.split("#")[0] == project_url.split("#")[0]
    row = browser.find_element(By.CSS_SELECTOR, "tr[data-requirement]")
    assert row.find_element(By.CSS_SELECTOR, ".requirement-notes").text == "Two plies, tent stitch"
    assert row.find_element(By.CSS_SELECTOR, ".need").text == "5"
    snap(browser, shots, "project-detail")

    browser.get(server + "/app/shopping")
    item = browser.find_element(By.CSS_SELECTOR, "#shopping .row")
    item_text = " ".join(item.get_attribute("textContent").split())
    assert "DMC 310" in item_text and "buy 2" in item_text
    snap(browser, shots, "shopping")
    # The skeins bought, with − and + (never under 1): 2 → 1 → 3 → 2.
    bought = item.find_element(By.CSS_SELECTOR, "output.qty")
    fewer = item.find_element(By.CSS_SELECTOR, "button[aria-label='One skein fewer of DMC 310']")
    more = item.find_element(By.CSS_SELECTOR, "button[aria-label='One skein more of DMC 310']")
    assert bought.text == "2" and fewer.is_displayed() and more.is_displayed()
    click(browser, fewer)
    assert bought.text == "1" and not fewer.is_enabled()
    click(browser, more)
    click(browser, more)
    assert bought.text == "3" and fewer.is_enabled()
    assert item.find_element(By.NAME, "quantity").get_attribute("value") == "3"  # what "Bought" sends
    click(browser, fewer)
    assert bought.text == "2"
    press(browser, item.find_element(By.XPATH, ".//button[normalize-space()='Bought']"))
    assert "Nothing to buy" in browser.page_source
    browser.get(server + "/app/inventory?q=black")
    assert browser.find_element(By.CSS_SELECTOR, "#threads output").get_attribute("textContent") == "5"
    browser.get(project_url)
    assert browser.find_element(By.ID, "readiness-summary").get_attribute("data-color") == "green"


def test_forged_form_is_refused(server, browser):
    browser.get(server + "/app/inventory")
    status = browser.execute_script("""
        const body = new URLSearchParams({_csrf: 'forged-token-forged-token-forged-token', brand: 'X', number: '1'});
        const r = await fetch('/app/inventory/new', {method: 'POST', body, headers: {'Content-Type': 'application/x-www-form-urlencoded'}});
        return r.status;""")
    assert status == 403


def test_settings_and_sign_out(server, browser, shots):
    browser.get(server + "/app/settings")
    assert "ann@example.com" in browser.page_source
    assert browser.find_element(By.LINK_TEXT, "Download everything (JSON, with pictures)").get_attribute("href").endswith("/app/settings/export.json")
    snap(browser, shots, "settings")
    submit(browser, "Sign out")
    WebDriverWait(browser, 5).until(lambda d: "/app/signin" in d.current_url)
    assert "Your craft companion" in browser.page_source
    browser.get(server + "/app/inventory")
    assert "/app/signin" in browser.current_url


def sign_in(browser, server, email, password="correct horse"):
    browser.get(server + "/app/signin")
    fill(browser, "email", email)
    fill(browser, "password", password)
    submit(browser, "Sign in")


def sign_up(browser, server, name, email, password="correct horse"):
    browser.get(server + "/app/signup")
    fill(browser, "displayName", name)
    fill(browser, "email", email)
    fill(browser, "password", password)
    submit(browser, "Create account")


@contextlib.contextmanager
def own_server_signed_up(name, email, size="phone"):
    """A server and a browser of the test's own, the browser signed up as `name`: yields both,
    and closes them after."""
    server = StitchServer().start()
    browser = chromium()
    try:
        browser.set_window_size(*SIZES[size])
        sign_up(browser, server.base, name, email)
        yield server.base, browser
    finally:
        browser.quit()
        server.close()


@pytest.fixture(scope="module")
def files():
    folder = tempfile.mkdtemp(prefix="stitch-files-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_import_preview_and_confirm(server, browser, shots, files):
    sign_in(browser, server, "ann@example.com")
    path = os.path.join(files, "stash.csv")
    with open(path, "wb") as f:
        f.write("\ufeffManufacturer;No.;Colour;Qty;Bin\r\nDMC;310;Black;2;A1\r\nAnchor;403;Rouge foncé;1;A2\r\nDMC;321;Red;lots;A3\r\n".encode())
    browser.get(server + "/app/settings")
    follow(browser, browser.find_element(By.LINK_TEXT, "Import from a spreadsheet"))
    browser.find_element(By.NAME, "file").send_keys(path)
    submit(browser, "Preview")
    columns = [" ".join(r.text.split()) for r in browser.find_elements(By.CSS_SELECTOR, "#import-columns tbody tr")]
    assert columns[3] == "D Qty quantity" and columns[4] == "E Bin not imported"
    problems = [" ".join(r.text.split()) for r in browser.find_elements(By.CSS_SELECTOR, "#import-problems tbody tr")]
    assert problems == ["4 D (Qty) “lots” is not a whole number"]
    assert browser.find_element(By.ID, "import-summary").text.startswith("Would add 1 threads, merge 1 into ones you have")
    merged = browser.find_element(By.CSS_SELECTOR, "#import-entries tr[data-action=merge]").text
    assert "quantity 5 → 7" in merged
    snap(browser, shots, "import-preview")
    # Nothing is written before the confirmation.
    inventory = browser.execute_script("""
        const r = await fetch('/app/inventory?q=anchor', {credentials: 'same-origin'});
        return await r.text();""")
    assert "No threads match" in inventory or "Anchor" not in inventory
    submit(browser, "Import 2 threads")
    assert "/app/inventory" in browser.current_url
    assert "Imported from stash.csv: Added 1 threads, merged 1" in browser.page_source
    browser.get(server + "/app/inventory?q=rouge")
    assert rows(browser) == ["Anchor 403"]


def test_restore_with_progress(server, browser, shots, files):
    # Ann's backup, downloaded as her browser would.
    backup = browser.execute_script("""
        const r = await fetch('/app/settings/export.json', {credentials: 'same-origin'});
        return await r.text();""")
    assert '"stitchuation-export-v2"' in backup and '"pictures"' in backup
    path = os.path.join(files, "stitchuation-export.json")
    with open(path, "w") as f:
        f.write(backup)
    browser.get(server + "/app/settings")
    submit(browser, "Sign out")
    sign_up(browser, server, "Bea", "bea@example.com")
    browser.get(server + "/app/settings")
    follow(browser, browser.find_element(By.LINK_TEXT, "Restore a backup"))
    browser.find_element(By.NAME, "backup").send_keys(path)
    press(browser, browser.find_element(By.XPATH, "//button[normalize-space()='Restore']"), 20)
    WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "restore-summary"))
    summary = browser.find_element(By.ID, "restore-summary").text
    assert "Threads: 4 added" in summary and "Canvases: 1 added" in summary and "Journal pictures: 2 added" in summary
    # The three photos of the walk-through are the same picture: stored once.
    assert "Pictures: 1 stored, 2 already here" in summary
    assert "got a new id" in summary
    snap(browser, shots, "restore-summary")
    browser.get(server + "/app/stash")
    thumb = browser.find_element(By.CSS_SELECTOR, "img.thumb")
    WebDriverWait(browser, 5).until(lambda d: d.execute_script("return arguments[0].naturalWidth", thumb) > 0)
    browser.get(server + "/app/inventory?q=rouge")
    assert rows(browser) == ["Anchor 403"]


def test_change_password(server, browser, shots):
    browser.get(server + "/app/settings")
    follow(browser, browser.find_element(By.LINK_TEXT, "Change password"))
    fill(browser, "currentPassword", "wrong horse")
    fill(browser, "newPassword", "new staple horse")
    fill(browser, "confirmPassword", "new staple horse")
    submit(browser, "Change password")
    assert "Not your current password" in browser.page_source
    fill(browser, "currentPassword", "correct horse")
    fill(browser, "newPassword", "new staple horse")
    fill(browser, "confirmPassword", "new staple horse")
    submit(browser, "Change password")
    assert "/app/settings" in browser.current_url and "Your password is changed" in browser.page_source


def test_delete_account(server, browser, shots):
    browser.get(server + "/app/settings")
    follow(browser, browser.find_element(By.LINK_TEXT, "Delete account…"))
    assert "4 threads, 1 canvases, 1 projects" in browser.page_source
    snap(browser, shots, "delete-account")
    fill(browser, "password", "new staple horse")
    page = browser.find_element(By.TAG_NAME, "html")
    click(browser, browser.find_element(By.XPATH, "//button[normalize-space()='Delete my account']"))
    # The button asks once more before the form goes.
    WebDriverWait(browser, 5).until(lambda d: d.switch_to.alert)
    browser.switch_to.alert.accept()
    loaded(browser, page)
    assert "/app/signin" in browser.current_url
    assert "Your account and everything in it have been deleted." in browser.page_source
    sign_in(browser, server, "bea@example.com", "new staple horse")
    assert "Invalid email or password" in browser.page_source
    # Ann's account is untouched.
    sign_in(browser, server, "ann@example.com")
    browser.get(server + "/app/inventory?q=rouge")
    assert rows(browser) == ["Anchor 403"]


def test_add_thread_from_catalog(server, browser, shots):
    """Typing "310" or "black" offers DMC 310 Black with its swatch at every width; picking it fills
    the form, and the thread is added with its swatch and the catalog's name."""
    sign_up(browser, server, "Cat", "cat@example.com")
    browser.get(server + "/app/inventory/new")
    finder = browser.find_element(By.ID, "f-catalog")
    assert finder.is_displayed()  # the page's script shows it

    def offered(query):
        finder.clear()
        finder.send_keys(query)
        # Wait for the list that answers the whole query: an earlier keystroke's answer ("bl") may
        # offer the same colour and then be replaced, leaving a stale element to click.
        WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "catalog-results")
                                        .get_attribute("data-query") == query and any(
            "DMC 310 Black" in " ".join(p.get_attribute("textContent").split())
            for p in d.find_elements(By.CSS_SELECTOR, "#catalog-results .catalog-pick")))
        return browser.find_elements(By.CSS_SELECTOR, "#catalog-results .catalog-pick")

    for label, (w, h) in SIZES.items():
        browser.set_window_size(w, h)
        picks = offered("310")
        assert " ".join(picks[0].get_attribute("textContent").split()) == "DMC 310 Black"
        swatch = picks[0].find_element(By.CSS_SELECTOR, ".swatch")
        assert swatch.value_of_css_property("background-color") in ("rgba(0, 0, 0, 1)", "rgb(0, 0, 0)")
        assert swatch.is_displayed() and picks[0].is_displayed()
        browser.save_screenshot(os.path.join(shots, f"catalog-310-{label}.png"))
        picks = offered("black")
        assert "DMC 310 Black" in [" ".join(p.get_attribute("textContent").split()) for p in picks]
    browser.set_window_size(*SIZES["phone"])

    pick = next(p for p in offered("black") if " ".join(p.get_attribute("textContent").split()) == "DMC 310 Black")
    click(browser, pick)
    assert browser.find_element(By.NAME, "brand").get_attribute("value") == "DMC"
    assert browser.find_element(By.NAME, "number").get_attribute("value") == "310"
    assert browser.find_element(By.NAME, "colorName").get_attribute("value") == "Black"
    assert browser.find_element(By.NAME, "colorHex").get_attribute("value") == "#000000"
    assert browser.find_element(By.NAME, "fiberType").get_attribute("value") == "cotton"
    assert browser.find_elements(By.CSS_SELECTOR, "#catalog-results .catalog-pick") == []
    # DMC makes its floss colours in pearl cotton too, under the same numbers: the line goes
    # into "Weight or length".
    line = browser.find_element(By.ID, "f-line")
    assert line.is_displayed()
    Select(line).select_by_visible_text("Pearl cotton #5")
    assert browser.find_element(By.NAME, "weightOrLength").get_attribute("value") == "Pearl cotton #5"
    fill(browser, "quantity", "2")
    click(browser, browser.find_element(By.NAME, "addAnother"))
    submit(browser, "Add thread")
    assert rows(browser) == ["DMC 310"]
    row = browser.find_element(By.XPATH, "//li[.//a[normalize-space()='DMC 310']]")
    assert row.find_element(By.CSS_SELECTOR, ".swatch").value_of_css_property("background-color") in ("rgba(0, 0, 0, 1)", "rgb(0, 0, 0)")
    assert "Black" in row.get_attribute("textContent") and "Cotton" in row.get_attribute("textContent")
    snap(browser, shots, "inventory-from-catalog")
    # Threads typed by hand get their swatch from "Match my threads to the catalog"; what the
    # catalog doesn't list is named.
    for brand, number in [("DMC", "321"), ("Appleton", "992")]:
        browser.get(server + "/app/inventory/new")
        fill(browser, "brand", brand)
        fill(browser, "number", number)
        click(browser, browser.find_element(By.NAME, "addAnother"))
        submit(browser, "Add thread")
    red = browser.find_element(By.XPATH, "//li[.//a[normalize-space()='DMC 321']]")
    assert red.find_element(By.CSS_SELECTOR, ".swatch").get_attribute("textContent") == "?"
    submit(browser, "Match my threads to the catalog")
    assert "Matched 1 thread to the catalog." in browser.page_source
    assert "Not in the catalog: Appleton 992." in browser.page_source
    red = browser.find_element(By.XPATH, "//li[.//a[normalize-space()='DMC 321']]")
    assert red.find_element(By.CSS_SELECTOR, ".swatch").value_of_css_property("background-color") in ("rgba(199, 43, 59, 1)", "rgb(199, 43, 59)")
    assert "Red" in red.get_attribute("textContent")
    snap(browser, shots, "inventory-matched")
    # What could stand in for it: the nearest Anchor colours, Anchor 403 first.
    follow(browser, browser.find_element(By.XPATH, "//a[normalize-space()='DMC 310']"))
    alternatives = browser.find_element(By.ID, "alternatives")
    assert "Nearest in other brands" in alternatives.get_attribute("textContent")
    titles = [" ".join(t.get_attribute("textContent").split()) for t in alternatives.find_elements(By.CSS_SELECTOR, ".title")]
    assert titles[0] == "Anchor 403", titles
    browser.execute_script("arguments[0].scrollIntoView({behavior: 'instant'})", alternatives)
    browser.save_screenshot(os.path.join(shots, "thread-alternatives-phone.png"))


def test_scan_barcode(server, browser, shots):
    """A photo of a barcode opens the owned thread; an unknown one opens the add form with the
    barcode filled in, and once added the next scan finds it; a photo with no barcode says so."""
    folder = tempfile.mkdtemp(prefix="stitch-scan-")

    def write(name, data):
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    owned, unknown = OWNED_BARCODE, UNKNOWN_BARCODE
    owned_photo = write("owned.png", made("barcode-owned.png"))
    unknown_photo = write("unknown.png", made("barcode-unknown.png"))
    blank_photo = write("blank.png", made("no-barcode.png"))

    sign_up(browser, server, "Scan", "scan@example.com")
    browser.get(server + "/app/inventory/new")
    fill(browser, "brand", "DMC")
    fill(browser, "number", "310")
    fill(browser, "barcode", owned)
    click(browser, browser.find_element(By.NAME, "addAnother"))
    submit(browser, "Add thread")
    follow(browser, browser.find_element(By.XPATH, "//a[normalize-space()='Scan']"))
    camera = browser.find_element(By.NAME, "image")
    assert camera.get_attribute("accept") == "image/*" and camera.get_attribute("capture") == "environment"
    snap(browser, shots, "scan")

    def take(path):
        """The camera's photo: choosing it sends the form (the page's script)."""
        page = browser.find_element(By.TAG_NAME, "html")
        browser.find_element(By.NAME, "image").send_keys(path)
        loaded(browser, page, 15)

    for label, (w, h) in SIZES.items():
        browser.set_window_size(w, h)
        browser.get(server + "/app/inventory/scan")
        take(owned_photo)
        assert browser.find_element(By.TAG_NAME, "h1").text == "Edit thread"
        assert browser.find_element(By.NAME, "number").get_attribute("value") == "310"
        assert f"Scanned: {owned} is your DMC 310." in browser.find_element(By.CSS_SELECTOR, ".flash").text
        browser.save_screenshot(os.path.join(shots, f"scan-owned-{label}.png"))
    browser.set_window_size(*SIZES["phone"])

    browser.get(server + "/app/inventory/scan")
    take(unknown_photo)
    assert browser.find_element(By.TAG_NAME, "h1").text == "Add thread"
    assert browser.find_element(By.NAME, "barcode").get_attribute("value") == unknown
    assert "isn't in your inventory or the catalog yet" in browser.find_element(By.ID, "scan-note").text
    snap(browser, shots, "scan-unknown")
    fill(browser, "brand", "Appleton")
    fill(browser, "number", "992")
    submit(browser, "Add thread")
    assert "Appleton 992" in rows(browser)
    # Next time the same label finds it — typed this time.
    browser.get(server + "/app/inventory/scan")
    fill(browser, "code", unknown)
    submit(browser, "Look up")
    assert browser.find_element(By.NAME, "number").get_attribute("value") == "992"
    assert f"{unknown} is your Appleton 992" in browser.page_source

    browser.get(server + "/app/inventory/scan")
    take(blank_photo)
    assert "No barcode found in the picture" in browser.page_source
    snap(browser, shots, "scan-no-barcode")
    fill(browser, "code", "1234")
    submit(browser, "Look up")
    assert "this has 4" in browser.page_source
    shutil.rmtree(folder, ignore_errors=True)


def test_pattern_viewer(server, browser, shots):
    """A PDF pattern uploaded to a project, paged with thumbnails, zoomed and panned by touch at
    phone width and by buttons; it opens again where it was left; an encrypted PDF is refused."""
    folder = tempfile.mkdtemp(prefix="stitch-pattern-")
    chart, locked = os.path.join(folder, "Nutcracker chart.pdf"), os.path.join(folder, "locked.pdf")
    with open(chart, "wb") as f:
        f.write(made("chart-12-pages.pdf"))
    with open(locked, "wb") as f:
        f.write(made("chart-encrypted.pdf"))

    sign_up(browser, server, "Pat", "pat@example.com")
    browser.get(server + "/app/stash/new")
    fill(browser, "designer", "Melissa Shirley")
    fill(browser, "designName", "Nutcracker")
    submit(browser, "Add canvas")
    browser.get(server + "/app/projects/start")
    submit(browser, "Start")
    project_url = browser.current_url
    assert "Add the pattern you stitch from" in browser.page_source

    browser.find_element(By.NAME, "file").send_keys(locked)
    submit(browser, "Add pattern")
    assert "password-protected" in browser.page_source

    browser.find_element(By.NAME, "file").send_keys(chart)
    submit(browser, "Add pattern")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Nutcracker chart"
    # The pages are drawn in the background: the progress goes and the page and thumbnails come.
    WebDriverWait(browser, 60).until(lambda d: d.find_element(By.ID, "pattern-progress").get_attribute("hidden") is not None)
    page = WebDriverWait(browser, 20).until(lambda d: d.find_element(By.ID, "pattern-page"))
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return arguments[0].naturalWidth", page) > 0)
    assert browser.find_element(By.ID, "pattern-counter").text == "Page 1 of 12"
    WebDriverWait(browser, 10).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#pattern-thumbs img")) == 12)
    snap(browser, shots, "pattern-viewer")

    stage = browser.find_element(By.ID, "pattern-stage")
    scale = lambda: float(stage.get_attribute("data-scale") or "1")
    # Buttons at every width.
    for label, (w, h) in SIZES.items():
        browser.set_window_size(w, h)
        click(browser, browser.find_element(By.CSS_SELECTOR, "[data-zoom=fit]"))
        click(browser, browser.find_element(By.CSS_SELECTOR, "[data-zoom=in]"))
        assert abs(scale() - 1.5) < 0.01, label
        assert browser.find_element(By.ID, "pattern-zoom").text == "150%"
        assert page.rect["width"] <= browser.execute_script("return document.documentElement.clientWidth")
    browser.set_window_size(*SIZES["phone"])
    click(browser, browser.find_element(By.CSS_SELECTOR, "[data-zoom=fit]"))
    assert abs(scale() - 1) < 0.01

    # Touch at 390 px: two fingers spread apart zoom in, one finger drags the page.
    cx, cy = centre_of(browser, stage)
    pinch_out(browser, cx, cy, 30, 6)
    pinched = scale()
    assert pinched > 2, f"pinch zoomed to {pinched}"
    before = page.get_attribute("style")
    touch(browser, "touchStart", [(cx, cy)])
    for step in range(1, 8):
        touch(browser, "touchMove", [(cx + 10 * step, cy + 8 * step)])
    touch(browser, "touchEnd", [])
    assert page.get_attribute("style") != before and abs(scale() - pinched) < 0.01
    browser.save_screenshot(os.path.join(shots, "pattern-zoomed-phone.png"))

    # Next page; the server remembers it, so opening the pattern again lands there.
    press(browser, browser.find_element(By.CSS_SELECTOR, "#pattern-viewer a[rel=next]"))
    assert browser.find_element(By.ID, "pattern-counter").text == "Page 2 of 12"
    viewer = browser.find_element(By.ID, "pattern-viewer")
    WebDriverWait(browser, 10).until(lambda d: viewer.get_attribute("data-saved") == "2")
    pattern_url = browser.current_url.split("?")[0]
    browser.get(project_url)
    assert "Page 2 of 12" in browser.find_element(By.ID, "pattern-list").get_attribute("textContent")
    browser.get(pattern_url)
    assert browser.find_element(By.ID, "pattern-counter").text == "Page 2 of 12"
    assert browser.find_element(By.CSS_SELECTOR, "#pattern-thumbs a[aria-current=page]").get_attribute("aria-label") == "Page 2"
    shutil.rmtree(folder, ignore_errors=True)


def test_chart_key(server, browser, shots):
    """A PDF chart's colour key read into the project's thread list, on a phone and at desktop
    width: the review shows each thread beside what the stitcher has, how its skeins were found
    and the line it couldn't read; one thread is left out and another's skeins changed; confirmed,
    the project's list, readiness and the shopping list (with a nearest substitute) follow, and
    reading the chart again offers nothing twice."""
    folder = tempfile.mkdtemp(prefix="stitch-key-")
    chart = os.path.join(folder, "Spring Meadow.pdf")
    with open(chart, "wb") as f:
        f.write(made("chart-with-key.pdf"))

    sign_up(browser, server, "Kim", "kim@example.com")
    browser.get(server + "/app/inventory/new")
    fill(browser, "brand", "DMC")
    fill(browser, "number", "310")
    fill(browser, "quantity", "1")
    click(browser, browser.find_element(By.NAME, "addAnother"))
    submit(browser, "Add thread")
    browser.get(server + "/app/stash/new")
    fill(browser, "designer", "Kim")
    fill(browser, "designName", "Spring Meadow")
    submit(browser, "Add canvas")
    browser.get(server + "/app/projects/start")
    submit(browser, "Start")
    project_url = browser.current_url
    browser.find_element(By.NAME, "file").send_keys(chart)
    submit(browser, "Add pattern")
    follow(browser, browser.find_element(By.ID, "read-key"))

    message = browser.find_element(By.ID, "key-message").text
    assert "Read 3 threads from the key" in message and "1 line of the key could not be read" in message, message
    rows = {r.get_attribute("data-key"): r for r in browser.find_elements(By.CSS_SELECTOR, "#key-rows .key-row")}
    assert list(rows) == ["DMC 310", "DMC 3865", "Anchor 403"]
    text_of = lambda el: " ".join(el.get_attribute("textContent").split())
    assert "You have 1, enough" in text_of(rows["DMC 310"])
    assert "You have none" in text_of(rows["DMC 3865"]) and "estimated from 5000 stitches on 14 count" in text_of(rows["DMC 3865"])
    assert "Nearest: Anchor" in text_of(rows["DMC 3865"])
    assert rows["DMC 3865"].find_element(By.NAME, "quantity-1").get_attribute("value") == "3"
    unread = text_of(browser.find_element(By.ID, "key-unread"))
    assert "Madeira 2400 White" in unread and "no catalog for Madeira" in unread
    for label, (w, h) in SIZES.items():
        browser.set_window_size(w, h)
        assert browser.execute_script("return document.documentElement.scrollWidth <= document.documentElement.clientWidth"), label
    browser.set_window_size(*SIZES["phone"])
    snap(browser, shots, "chart-key")

    # Anchor 403 left out, four skeins of DMC 3865 rather than three.
    click(browser, browser.find_element(By.ID, "take-2"))
    fill(browser, "quantity-1", "4")
    submit(browser, "Add the ticked threads to Spring Meadow")
    assert browser.current_url.startswith(project_url)
    assert "Added 2 threads from the chart's key." in browser.find_element(By.CSS_SELECTOR, ".flash").text
    needs = {" ".join(r.find_element(By.CSS_SELECTOR, "td").get_attribute("textContent").split()[:2]): r
             for r in browser.find_elements(By.CSS_SELECTOR, "tr[data-requirement]")}
    assert set(needs) == {"DMC 310", "DMC 3865"}, list(needs)
    assert needs["DMC 3865"].find_element(By.CSS_SELECTOR, ".buy").text == "4"
    assert needs["DMC 310"].find_element(By.CSS_SELECTOR, ".buy").text == "0"
    assert browser.find_element(By.ID, "readiness-summary").get_attribute("data-color") == "yellow"
    snap(browser, shots, "chart-key-project")

    browser.get(server + "/app/shopping")
    item = browser.find_element(By.CSS_SELECTOR, "#shopping .row[data-item='DMC 3865']")
    item_text = text_of(item)
    assert "buy 4" in item_text and "Nearest:" in item_text, item_text
    assert not browser.find_elements(By.CSS_SELECTOR, "#shopping .row[data-item='DMC 310']")
    snap(browser, shots, "chart-key-shopping")

    # Read again: what the project has is unticked and said; confirming it adds nothing.
    browser.get(project_url)
    follow(browser, browser.find_element(By.CSS_SELECTOR, "#pattern-list a.title"))
    follow(browser, browser.find_element(By.ID, "read-key"))
    rows = {r.get_attribute("data-key"): r for r in browser.find_elements(By.CSS_SELECTOR, "#key-rows .key-row")}
    assert "Already on the project's list" in text_of(rows["DMC 310"])
    assert not browser.find_element(By.ID, "take-0").is_selected() and browser.find_element(By.ID, "take-2").is_selected()
    shutil.rmtree(folder, ignore_errors=True)


def painted_canvas(width=600, height=400):
    """A painted canvas photographed under warm light: a bare white border around three bands —
    DMC 321 Red (half), 797 Royal Blue and 699 Green (a quarter each)."""
    bands = [(0.5, (0xC7, 0x2B, 0x3B)), (0.75, (0x13, 0x47, 0x7D)), (1.0, (0x05, 0x65, 0x17))]
    def pixel(x, y):
        bx, by = width // 10, height // 10
        rgb = (0xF2, 0xF0, 0xEA)
        if bx <= x < width - bx and by <= y < height - by:
            at = (x - bx) / (width - 2 * bx)
            rgb = next(c for until, c in bands if at < until)
        return (rgb[0], rgb[1], int(rgb[2] * 0.9))
    return png(width, height, pixel)


def test_canvas_palette(server, browser, shots):
    """A painted canvas's photo becomes its thread list on a phone: the colours found beside the
    photo, the size and mesh asked for and saved, a colour's region lit up on the photo when its
    row says "Show", more colours, a bare spot tapped; then one colour merged onto another's
    thread, a thread added by hand, and "Add" starts the canvas's project with them — its list,
    readiness and the shopping list follow. Another account on the same browser can't open the page."""
    folder = tempfile.mkdtemp(prefix="stitch-palette-")
    photo = os.path.join(folder, "flag.png")
    with open(photo, "wb") as f:
        f.write(painted_canvas())
    sign_up(browser, server, "Pia", "pia@example.com")
    add_thread(browser, server, "321", "5")
    browser.get(server + "/app/stash/new")
    browser.find_element(By.NAME, "image").send_keys(photo)
    fill(browser, "designer", "Pia")
    fill(browser, "designName", "Flag")
    submit(browser, "Add canvas")
    follow(browser, browser.find_element(By.ID, "canvas-palette"))
    palette_url = browser.current_url.split("?")[0]
    text_of = lambda el: " ".join(el.get_attribute("textContent").split())
    message = text_of(browser.find_element(By.ID, "palette-message"))
    assert "Found 3 colours" in message and "unpainted border" in message, message
    # No size or mesh yet: asked for, and saved on the canvas.
    assert "Amounts need the canvas's size" in text_of(browser.find_element(By.ID, "palette-size"))
    fill(browser, "size", "10 x 8 in")
    fill(browser, "meshCount", "13")
    submit(browser, "Save and count skeins")
    assert not browser.find_elements(By.ID, "palette-size")
    rows = browser.find_elements(By.CSS_SELECTOR, "#palette-rows .palette-row")
    assert len(rows) == 3
    assert "About" in text_of(rows[0]) and "you have 5, buy 5" in text_of(rows[0]), text_of(rows[0])
    assert Select(browser.find_element(By.ID, "thread-1")).first_selected_option.get_attribute("value") == "DMC|797"

    # "Show" lights the blue band up: the red is dimmed on the overlay, the blue is not.
    show = rows[1].find_element(By.CSS_SELECTOR, ".palette-show")
    click(browser, show)
    figure = browser.find_element(By.ID, "palette-photo")
    assert figure.get_attribute("data-showing") == "1" and show.get_attribute("aria-pressed") == "true"
    alpha = lambda fx, fy: browser.execute_script(
        "var c = document.querySelector('.palette-overlay'); return c.getContext('2d').getImageData("
        "Math.floor(c.width * arguments[0]), Math.floor(c.height * arguments[1]), 1, 1).data[3]", fx, fy)
    assert alpha(0.3, 0.5) > 100 and alpha(0.65, 0.5) == 0, (alpha(0.3, 0.5), alpha(0.65, 0.5))
    snap(browser, shots, "canvas-palette")
    click(browser, show)
    assert figure.get_attribute("data-showing") is None and alpha(0.3, 0.5) == 0

    follow(browser, browser.find_element(By.ID, "palette-more"))
    assert "detail=5" in browser.current_url and len(browser.find_elements(By.CSS_SELECTOR, "#palette-rows .palette-row")) >= 3
    # A bare spot tapped on the photo: read again against it.
    click(browser, browser.find_element(By.ID, "palette-spot"))
    image = browser.find_element(By.ID, "palette-image")
    page = browser.find_element(By.TAG_NAME, "html")
    ActionChains(browser).move_to_element_with_offset(image, -image.size["width"] // 2 + 8, -image.size["height"] // 2 + 8).click().perform()
    loaded(browser, page)
    assert "spot=" in browser.current_url
    assert "against the spot you tapped" in text_of(browser.find_element(By.ID, "palette-message"))

    # The green onto the blue's thread, four skeins of red, DMC 3865 added; a new project.
    browser.get(palette_url)
    Select(browser.find_element(By.ID, "merge-2")).select_by_visible_text("The same thread as Colour 2")
    fill(browser, "quantity-0", "4")
    fill(browser, "add-number", "3865")
    assert Select(browser.find_element(By.ID, "palette-target")).first_selected_option.text == "A new project from this canvas"
    submit(browser, "Add the ticked threads")
    assert "Started a project from the canvas. Added 3 threads" in browser.find_element(By.CSS_SELECTOR, ".flash").text
    needs = {" ".join(r.find_element(By.CSS_SELECTOR, "td").get_attribute("textContent").split()[:2]): r
             for r in browser.find_elements(By.CSS_SELECTOR, "tr[data-requirement]")}
    assert set(needs) == {"DMC 321", "DMC 797", "DMC 3865"}, list(needs)
    assert needs["DMC 321"].find_element(By.CSS_SELECTOR, ".buy").text == "0"
    blue_skeins = int(rows_skeins := needs["DMC 797"].find_element(By.CSS_SELECTOR, ".buy").text)
    assert blue_skeins >= 2, rows_skeins
    assert browser.find_element(By.ID, "readiness-summary").get_attribute("data-color") == "yellow"
    browser.get(server + "/app/shopping")
    assert browser.find_elements(By.CSS_SELECTOR, "#shopping .row[data-item='DMC 797']")
    # The canvas's project now exists: the page offers it, not a new one.
    browser.get(palette_url)
    assert "(this canvas’s project)" in Select(browser.find_element(By.ID, "palette-target")).first_selected_option.text

    # Another account on the same browser: Pia's canvas isn't there for Lee.
    browser.get(server + "/app/settings")
    submit(browser, "Sign out")
    sign_up(browser, server, "Lee", "lee@example.com")
    browser.get(palette_url)
    assert "Colours of Flag" not in browser.page_source and not browser.find_elements(By.ID, "palette-rows")
    browser.get(server + "/app/settings")
    submit(browser, "Sign out")
    shutil.rmtree(folder, ignore_errors=True)


def section_names(browser):
    return [" ".join(h.get_attribute("textContent").split()) for h in browser.find_elements(By.CSS_SELECTOR, "#threads h3[data-section]")]


def open_tools(browser, container, summary):
    """Opens a <details> editor by its summary's text, inside `container`."""
    toggle = container.find_element(By.XPATH, f".//summary[starts-with(normalize-space(), '{summary}')]")
    click(browser, toggle)
    return toggle.find_element(By.XPATH, "..")


def section_tools(browser, name):
    """The editor under a section's heading, opened."""
    tools = browser.find_element(By.XPATH, f"//h3[@data-section][contains(., '{name}')]/following-sibling::details[1]")
    click(browser, tools.find_element(By.TAG_NAME, "summary"))
    return tools


def add_thread(browser, base, number, quantity, brand="DMC"):
    """A thread added with the inventory's form: brand, number, skeins."""
    browser.get(base + "/app/inventory/new")
    fill(browser, "brand", brand)
    fill(browser, "number", number)
    fill(browser, "quantity", quantity)
    submit(browser, "Add thread")


def submit_in(browser, container, text):
    """Submits the form of the button `text` inside `container` and waits for the next page."""
    press(browser, container.find_element(By.XPATH, f".//button[normalize-space()='{text}']"))


def test_edit_project_parts(server, browser, shots, photos):
    """Everything a project page shows is edited there — sections renamed, reordered and deleted
    on a phone; a journal entry and the project's notes edited on a desktop — and adding a thread
    you have offers to add to it instead of a second copy."""
    sign_up(browser, server, "Edie", "edie@example.com")
    browser.set_window_size(*SIZES["phone"])
    browser.get(server + "/app/stash/new")
    fill(browser, "designer", "Kirk & Bradley")
    fill(browser, "designName", "Santa")
    fill(browser, "meshCount", "18")
    fill(browser, "size", "10x14")
    submit(browser, "Add canvas")
    browser.get(server + "/app/projects/start")
    submit(browser, "Start")
    project_url = browser.current_url
    facts = " ".join(browser.find_element(By.ID, "project-facts").get_attribute("textContent").split())
    assert "Kirk & Bradley" in facts and "18 mesh" in facts and "10x14" in facts
    for name in ["Border", "Sky", "Beard"]:
        click(browser, browser.find_element(By.XPATH, "//summary[normalize-space()='Add a section']"))
        browser.find_element(By.ID, "f-name").send_keys(name)
        submit(browser, "Add section")
    assert section_names(browser) == ["Border · Not started", "Sky · Not started", "Beard · Not started"]

    # Rename and set the status of "Sky", on a phone.
    tools = section_tools(browser, "Sky")
    name = tools.find_element(By.CSS_SELECTOR, "input[name=name]")
    name.clear()
    name.send_keys("Night sky")
    Select(tools.find_element(By.CSS_SELECTOR, "select[name=status]")).select_by_value("in_progress")
    submit_in(browser, tools, "Save section")
    assert section_names(browser) == ["Border · Not started", "Night sky · In progress", "Beard · Not started"]

    # Move "Beard" up, then "Border" down: the order every device sees.
    submit_in(browser, section_tools(browser, "Beard"), "↑ Move up")
    assert section_names(browser) == ["Border · Not started", "Beard · Not started", "Night sky · In progress"]
    snap(browser, shots, "project-sections-edit")

    # Delete "Border" at desktop width; the first section's "Move up" is disabled.
    browser.set_window_size(*SIZES["desktop"])
    border = section_tools(browser, "Border")
    assert not border.find_element(By.XPATH, ".//button[normalize-space()='↑ Move up']").is_enabled()
    browser.execute_script("window.confirm = function () { return true; }")
    submit_in(browser, border, "Delete section")
    assert section_names(browser) == ["Beard · Not started", "Night sky · In progress"]

    # A journal entry written, then edited, at desktop width; the project's notes saved.
    browser.find_element(By.ID, "f-entry-notes").send_keys("Stitched the beard")
    submit(browser, "Add entry")
    entry = browser.find_element(By.CSS_SELECTOR, "#entries [data-entry]")
    tools = open_tools(browser, entry, "Edit entry")
    text = tools.find_element(By.TAG_NAME, "textarea")
    text.clear()
    text.send_keys("Stitched the beard in French knots")
    submit_in(browser, tools, "Save entry")
    entry = browser.find_element(By.CSS_SELECTOR, "#entries [data-entry] p")
    assert entry.get_attribute("textContent") == "Stitched the beard in French knots"

    # Photos added to the entry afterwards, on a phone: two at once, then the first moved later
    # and the (new) first removed.
    browser.set_window_size(*SIZES["phone"])
    tools = open_tools(browser, browser.find_element(By.CSS_SELECTOR, "#entries [data-entry]"), "Edit entry")
    tools.find_element(By.CSS_SELECTOR, "input[type=file][name=images]").send_keys("\n".join(photos[1:]))
    submit_in(browser, tools, "Add photos")
    def order():
        return [li.get_attribute("data-photo") for li in browser.find_elements(By.CSS_SELECTOR, "#entries .photo-tools li")]
    added = order()
    assert len(added) == 2 and len(browser.find_elements(By.CSS_SELECTOR, "#entries [data-entry] .grid img")) == 2
    tools = open_tools(browser, browser.find_element(By.CSS_SELECTOR, "#entries [data-entry]"), "Edit entry")
    button = tools.find_element(By.CSS_SELECTOR, "button[aria-label='Move photo 1 later']")
    assert button.size["height"] >= 44, "a finger can hit it"
    snap(browser, shots, "journal-photos-edit")
    submit_in(browser, tools, "↓ Later")
    assert order() == added[::-1]
    tools = open_tools(browser, browser.find_element(By.CSS_SELECTOR, "#entries [data-entry]"), "Edit entry")
    browser.execute_script("window.confirm = function () { return true; }")
    press(browser, tools.find_element(By.CSS_SELECTOR, "button[aria-label='Remove photo 1']"))
    assert order() == [added[0]]
    # At 1024 px the page sits beside the projects (the split view): one more added, moved
    # earlier, and removed there.
    browser.set_window_size(1024, 768)
    assert browser.find_element(By.CSS_SELECTOR, ".split-list").is_displayed()
    tools = open_tools(browser, browser.find_element(By.CSS_SELECTOR, "#entries [data-entry]"), "Edit entry")
    tools.find_element(By.CSS_SELECTOR, "input[type=file][name=images]").send_keys(photos[2])
    submit_in(browser, tools, "Add photos")
    later = order()
    assert len(later) == 2 and later[0] == added[0], "a photo added later comes after the others"
    tools = open_tools(browser, browser.find_element(By.CSS_SELECTOR, "#entries [data-entry]"), "Edit entry")
    earlier = tools.find_element(By.CSS_SELECTOR, "button[aria-label='Move photo 2 earlier']")
    assert earlier.is_displayed() and earlier.size["height"] >= 44
    press(browser, earlier)
    assert order() == later[::-1]
    browser.save_screenshot(os.path.join(shots, "journal-photos-edit-1024.png"))
    tools = open_tools(browser, browser.find_element(By.CSS_SELECTOR, "#entries [data-entry]"), "Edit entry")
    browser.execute_script("window.confirm = function () { return true; }")
    press(browser, tools.find_element(By.CSS_SELECTOR, "button[aria-label='Remove photo 1']"))
    assert order() == [added[0]]
    browser.set_window_size(*SIZES["desktop"])
    notes = open_tools(browser, browser.find_element(By.ID, "notes"), "Add notes")
    notes.find_element(By.TAG_NAME, "textarea").send_keys("A gift for Mum")
    submit_in(browser, notes, "Save notes")
    assert browser.find_element(By.ID, "project-notes").get_attribute("textContent") == "A gift for Mum"
    snap(browser, shots, "project-edited")

    # A thread you have: offered "Add 2 to it", and merged — one DMC 310 with 3 skeins.
    for width in ["phone", "desktop"]:
        browser.set_window_size(*SIZES[width])
        add_thread(browser, server, "310", "1" if width == "phone" else "2")
    offer = browser.find_element(By.ID, "duplicate")
    assert "You have DMC 310 already: 1 skein" in " ".join(offer.get_attribute("textContent").split())
    snap(browser, shots, "thread-duplicate")
    submit_in(browser, offer, "Add 2 to it")
    assert "you have 3 now" in browser.page_source
    browser.get(server + "/app/inventory?q=310")
    assert rows(browser) == ["DMC 310"] or len(browser.find_elements(By.CSS_SELECTOR, "#threads .row")) == 1
    assert browser.find_element(By.CSS_SELECTOR, "#threads output").get_attribute("textContent") == "3"
    browser.set_window_size(*SIZES["phone"])
    browser.get(project_url)


def test_plan_shop_and_turn_green(server, browser, shots):
    """A shop trip from a plan: a planned project is short of a thread, its one-tap "Add to
    shopping list" puts it on the list (planned projects aren't counted otherwise), it is bought
    from the list and the project turns green — on a phone; a thread running low is added by hand
    and set aside on a desktop."""
    sign_up(browser, server, "Flo", "flo@example.com")
    browser.set_window_size(*SIZES["phone"])
    add_thread(browser, server, "310", "1")
    browser.get(server + "/app/stash/new")
    fill(browser, "designer", "Raymond Crawford")
    fill(browser, "designName", "Fox")
    submit(browser, "Add canvas")
    browser.get(server + "/app/projects/start")
    submit(browser, "Plan")
    project_url = browser.current_url
    click(browser, browser.find_element(By.XPATH, "//summary[normalize-space()='Add a thread requirement']"))
    fill(browser, "brand", "DMC")
    fill(browser, "number", "310")
    fill(browser, "quantityNeeded", "3")
    submit(browser, "Add requirement")
    assert browser.find_element(By.ID, "readiness-summary").get_attribute("data-color") == "red"
    row = browser.find_element(By.CSS_SELECTOR, "tr[data-requirement]")
    submit_in(browser, row, "Add 2 to shopping list")
    assert "On your shopping list: DMC 310, 2 added by hand" in browser.page_source
    assert browser.current_url.split("?")[0] == project_url.split("?")[0]
    row = browser.find_element(By.CSS_SELECTOR, "tr[data-requirement]")
    assert "On your shopping list: 2 added by hand" in " ".join(row.get_attribute("textContent").split())
    snap(browser, shots, "project-planned-on-list")

    browser.get(server + "/app/shopping")
    item = browser.find_element(By.CSS_SELECTOR, "#shopping [data-item='DMC 310']")
    item_text = " ".join(item.get_attribute("textContent").split())
    assert "buy 2" in item_text and "by hand: For Fox" in item_text, item_text
    snap(browser, shots, "shopping-by-hand")
    submit_in(browser, item, "Bought")
    assert "Nothing to buy" in browser.page_source
    browser.get(project_url)
    assert browser.find_element(By.ID, "readiness-summary").get_attribute("data-color") == "green"

    # Running low on a thread no project needs: added from its page, then set aside from the list.
    browser.set_window_size(*SIZES["desktop"])
    browser.get(server + "/app/inventory?q=310")
    press(browser, browser.find_element(By.CSS_SELECTOR, "#threads a.title"))
    low = browser.find_element(By.ID, "running-low")
    quantity = low.find_element(By.NAME, "quantity")
    quantity.clear()
    quantity.send_keys("2")
    submit_in(browser, low, "Add to shopping list")
    assert "On your shopping list: DMC 310, 2 added by hand" in browser.page_source
    browser.get(server + "/app/shopping")
    item = browser.find_element(By.CSS_SELECTOR, "#shopping [data-item='DMC 310']")
    assert "by hand: Running low" in " ".join(item.get_attribute("textContent").split())
    snap(browser, shots, "shopping-running-low")
    submit_in(browser, item, "Set aside")
    assert "Nothing to buy" in browser.page_source
    # A project from a chart has no canvas: planned under a name, on a phone.
    browser.set_window_size(*SIZES["phone"])
    browser.get(server + "/app/projects/start")
    section = browser.find_element(By.ID, "without-canvas")
    section.find_element(By.NAME, "name").send_keys("Hare, from the chart")
    submit_in(browser, section, "Plan it")
    assert browser.find_element(By.TAG_NAME, "h1").text == "Hare, from the chart"
    assert "Planned" in browser.find_element(By.ID, "project-facts").get_attribute("textContent")
    assert browser.find_elements(By.ID, "patterns"), "the chart is added on the project's page"
    snap(browser, shots, "project-without-canvas")


def stitch_cli(home, *args):
    """The stitch CLI (STITCH_CLI_BIN; StitchKit's sync engine and local store) as a device of its own."""
    done = subprocess.run([binary("stitch", "STITCH_CLI_BIN"), *args], env=dict(os.environ, STITCH_HOME=home, STITCH_PASSWORD="correct horse"),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def quantities(browser):
    return {" ".join(r.find_element(By.CSS_SELECTOR, ".title").get_attribute("textContent").split()):
            r.find_element(By.CSS_SELECTOR, "output.qty").text for r in browser.find_elements(By.CSS_SELECTOR, "#threads .row")}


def settled_quantities(browser, expected):
    """The list's quantities once the page has drawn them (a row's count can read empty while the
    page is still applying what it kept), compared with `expected`."""
    try:
        WebDriverWait(browser, 10, ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: quantities(d) == expected)
    except TimeoutException:
        pass
    return quantities(browser)


def network(browser, offline):
    browser.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


# How many photos of journal notes the page keeps in the browser's database, waiting to be sent.
KEPT_PHOTOS = """
var done = arguments[arguments.length - 1], open = indexedDB.open('stitch-kept-photos', 1);
open.onupgradeneeded = function () { open.result.createObjectStore('photos', { keyPath: 'key' }); };
open.onsuccess = function () { var r = open.result.transaction('photos').objectStore('photos').count();
  r.onsuccess = function () { open.result.close(); done(r.result); }; };
"""


def test_offline_in_a_shop(browser, shots):
    """In a needlework shop with no signal, on a phone: the inventory, the shopping list and the
    projects read as last seen, with "as of"; the inventory is searched on the page; a page never
    opened says it can't be shown. Quantities stepped, a line of the shopping list bought, a thread
    added and a journal note written offline are kept on the device through a reload, and sent when the network is back, dated when
    they were made: a step and a purchase add to what a StitchKit device (the stitch CLI) changed
    meanwhile, and everything reaches the server and the device's next pull. The server itself goes away (DevTools'
    offline switch doesn't reach the service worker's fetches) and the page is told it is offline."""
    server = StitchServer().start()
    base = server.base
    device = tempfile.mkdtemp(prefix="stitch-device-")
    try:
        browser.set_window_size(*SIZES["phone"])
        sign_up(browser, base, "Gil", "gil@example.com")
        for number, quantity in [("3865", "2"), ("310", "1")]:
            add_thread(browser, base, number, quantity)
        browser.get(base + "/app/projects/start")
        section = browser.find_element(By.ID, "without-canvas")
        section.find_element(By.NAME, "name").send_keys("Shop sampler")
        submit_in(browser, section, "Plan it")
        project = browser.current_url.split("#")[0]
        # Running low on DMC 310: two on the shopping list by hand.
        browser.get(base + "/app/shopping")
        click(browser, browser.find_element(By.CSS_SELECTOR, "#shopping-add summary"))
        fill(browser, "number", "310")
        fill(browser, "quantity", "2")
        submit_in(browser, browser.find_element(By.ID, "shopping-add"), "Add to list")
        assert browser.find_elements(By.CSS_SELECTOR, "#shopping .row[data-item='DMC 310']")
        stitch_cli(device, "login", "--server", base, "--email", "gil@example.com")
        browser.get(base + "/app/inventory")
        WebDriverWait(browser, 20).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        manifest = browser.find_element(By.CSS_SELECTOR, "link[rel=manifest]").get_attribute("href")
        assert manifest.endswith("/app/manifest.webmanifest")
        # Chromium finds it installable (the manifest's icon is a data: URL), with nothing to say.
        assert browser.execute_cdp_cmd("Page.getAppManifest", {}).get("errors") == []
        assert browser.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"] == []
        # Seen online with the worker in charge: these are kept.
        for path in ["/app/inventory", "/app/shopping", "/app/projects", "/app/inventory/new", project[len(base):]]:
            browser.get(base + path)
            WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
        until_kept(browser, ["/app/inventory", "/app/shopping", "/app/projects", "/app/inventory/new", project[len(base):]])
        browser.execute_cdp_cmd("Network.enable", {})
        network(browser, offline=True)
        server.stop()  # the shop has no signal: nothing answers

        browser.get(base + "/app/inventory")
        note = browser.find_element(By.ID, "offline-note")
        assert note.text.startswith("Offline — as of") and note.get_attribute("data-as-of"), note.text
        assert "kept on this device" in note.text
        assert rows(browser) == ["DMC 310", "DMC 3865"]
        search = browser.find_element(By.NAME, "q")
        search.send_keys("3865")
        search.submit()
        WebDriverWait(browser, 5).until(lambda d: d.find_elements(By.ID, "offline-count"))
        visible = [r for r in browser.find_elements(By.CSS_SELECTOR, "#threads .row") if r.is_displayed()]
        assert [" ".join(r.find_element(By.CSS_SELECTOR, ".title").get_attribute("textContent").split()) for r in visible] == ["DMC 3865"]
        assert "1 of 2 threads" in browser.find_element(By.ID, "offline-count").text
        snap(browser, shots, "offline-inventory")
        # Stepped offline: DMC 3865 2 → 3 (the device will change it later), DMC 310 1 → 2.
        click(browser, browser.find_element(By.CSS_SELECTOR, "button[aria-label='One more DMC 3865']"))
        WebDriverWait(browser, 5).until(lambda d: quantities(d).get("DMC 3865") == "3")
        browser.get(base + "/app/inventory")
        click(browser, browser.find_element(By.CSS_SELECTOR, "button[aria-label='One more DMC 310']"))
        WebDriverWait(browser, 5).until(lambda d: quantities(d).get("DMC 310") == "2")
        # Bought the two DMC 310 on the list, ticked offline: 2 + 2 = 4.
        browser.get(base + "/app/shopping")
        click(browser, browser.find_element(By.CSS_SELECTOR, "button[aria-label='Bought DMC 310']"))
        WebDriverWait(browser, 5).until(lambda d: "Bought 2 — kept on this device" in d.find_element(By.ID, "shopping").text)
        # A thread added offline, from the form kept for it.
        browser.get(base + "/app/inventory/new")
        add_one_thread(browser, "444", "2", color_name="Dark lemon")
        assert browser.current_url == base + "/app/inventory"
        # A journal note, on the project's page kept offline.
        browser.get(project)
        browser.find_element(By.ID, "f-entry-notes").send_keys("Bought the gold in the shop; the sampler can start")
        # With a photo: kept in the browser's database until the note is on the server.
        shop_photo = os.path.join(device, "shop.png")
        with open(shop_photo, "wb") as f:
            f.write(png(120, 90, lambda x, y: (201, 162, 39)))
        browser.find_element(By.NAME, "images").send_keys(shop_photo)
        click(browser, browser.find_element(By.XPATH, "//button[normalize-space()='Add entry']"))
        WebDriverWait(browser, 5).until(lambda d: "Bought the gold" in d.find_element(By.ID, "journal").text)
        assert "1 photo kept on this device" in browser.find_element(By.ID, "journal").text
        # Nothing typed offline is lost on reload.
        browser.get(base + "/app/inventory")
        browser.refresh()
        got = settled_quantities(browser, {"DMC 444": "2", "DMC 310": "4", "DMC 3865": "3"})
        assert got == {"DMC 444": "2", "DMC 310": "4", "DMC 3865": "3"}, got
        kept = browser.find_element(By.ID, "outbox-kept").text
        assert kept.startswith("5 changes kept on this device"), kept
        snap(browser, shots, "offline-changes-kept")
        browser.get(base + "/app/stash/new")
        assert "You're offline" in browser.page_source, browser.page_source[:3000]
        browser.get(base + "/app/inventory")

        # Meanwhile the server is back, and the device (which has its own signal) adds 5 to
        # DMC 3865 after the browser's +1: both count, 2 + 1 + 5 = 8.
        server.start()
        stitch_cli(device, "threads", "inc", "DMC", "3865", "5")
        # The browser's network comes back: what it kept is sent.
        network(browser, offline=False)
        WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "outbox-sent"))
        sent = browser.find_element(By.ID, "outbox-sent").text
        assert sent == "Sent 5 changes made offline.", sent
        # The journal note's photo follows it at once, from the same page, and leaves the browser's database.
        WebDriverWait(browser, 20).until(lambda d: d.execute_async_script(KEPT_PHOTOS) == 0)
        WebDriverWait(browser, 5).until(lambda d: quantities(d).get("DMC 3865") == "8")
        assert browser.execute_script("return localStorage.getItem('stitch-outbox')") == "[]"
        assert not browser.find_elements(By.ID, "outbox-kept")
        # The server has them, and the device's next pull brings them.
        browser.refresh()
        got = settled_quantities(browser, {"DMC 310": "4", "DMC 3865": "8", "DMC 444": "2"})
        assert got == {"DMC 310": "4", "DMC 3865": "8", "DMC 444": "2"}, got
        snap(browser, shots, "offline-changes-sent")
        stitch_cli(device, "sync")
        on_device = {f"{t['brand']} {t['number']}": (t["quantity"], t.get("colorName")) for t in json.loads(stitch_cli(device, "threads", "list", "--json"))}
        assert on_device == {"DMC 310": (4, None), "DMC 3865": (8, None), "DMC 444": (2, "Dark lemon")}, on_device
        browser.get(base + "/app/shopping")
        assert "Nothing to buy" in browser.page_source, "the bought line is gone from the list"
        browser.get(project)
        assert "Bought the gold in the shop; the sampler can start" in browser.find_element(By.ID, "entries").text
        assert not browser.find_elements(By.CSS_SELECTOR, "#entries .pending")
        # The photo is on its note.
        assert browser.find_elements(By.CSS_SELECTOR, "#entries img")
    finally:
        network(browser, offline=False)
        server.close()
        shutil.rmtree(device, ignore_errors=True)


def one_dmc_321_short_by_two(browser, base, name, email):
    """A new account on a phone holding one DMC 321, with 2 more on its shopping list by hand."""
    browser.set_window_size(*SIZES["phone"])
    sign_up(browser, base, name, email)
    add_thread(browser, base, "321", "1")
    browser.get(base + "/app/shopping")
    click(browser, browser.find_element(By.CSS_SELECTOR, "#shopping-add summary"))
    fill(browser, "number", "321")
    fill(browser, "quantity", "2")
    submit_in(browser, browser.find_element(By.ID, "shopping-add"), "Add to list")


def test_server_unreachable_while_online(browser, shots):
    """One bar of signal is not "offline": the browser still says it is online, but the server
    doesn't answer (stopped here). A purchase, a new thread and a journal note are kept on the
    device, said so, and sent when the server answers again — the purchase counted once."""
    server = StitchServer().start()
    base = server.base
    try:
        one_dmc_321_short_by_two(browser, base, "Ida", "ida@example.com")
        browser.get(base + "/app/projects/start")
        section = browser.find_element(By.ID, "without-canvas")
        section.find_element(By.NAME, "name").send_keys("Signal sampler")
        submit_in(browser, section, "Plan it")
        project = browser.current_url.split("#")[0]
        browser.get(base + "/app/inventory")
        WebDriverWait(browser, 20).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        for path in ["/app/inventory", "/app/shopping", "/app/inventory/new", project[len(base):]]:
            browser.get(base + path)
            WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
        until_kept(browser, ["/app/inventory", "/app/shopping", "/app/inventory/new", project[len(base):]])
        browser.get(base + "/app/shopping")
        server.stop()  # the browser is left "online": only the server is gone
        assert browser.execute_script("return navigator.onLine") is True
        click(browser, browser.find_element(By.CSS_SELECTOR, "button[aria-label='Bought DMC 321']"))
        WebDriverWait(browser, 15).until(lambda d: "Bought 2 — kept on this device" in d.find_element(By.ID, "shopping").text)
        assert "didn't answer" in browser.find_element(By.ID, "outbox-kept").text
        snap(browser, shots, "unreachable-bought-kept")
        browser.get(project)
        browser.find_element(By.ID, "f-entry-notes").send_keys("Written with one bar of signal")
        click(browser, browser.find_element(By.XPATH, "//button[normalize-space()='Add entry']"))
        WebDriverWait(browser, 15).until(lambda d: "Written with one bar" in d.find_element(By.ID, "journal").text)
        browser.get(base + "/app/inventory/new")
        add_one_thread(browser, "798", "3")
        WebDriverWait(browser, 15).until(lambda d: d.current_url == base + "/app/inventory")
        kept = json.loads(browser.execute_script("return localStorage.getItem('stitch-outbox')"))
        assert sorted(c["type"] for c in kept) == ["journalEntry", "purchase", "thread"], kept
        # The server answers again: the page sends what it kept on its own (no "online" event comes).
        server.start()
        WebDriverWait(browser, 40).until(lambda d: d.find_elements(By.ID, "outbox-sent"))
        assert browser.execute_script("return localStorage.getItem('stitch-outbox')") == "[]"
        browser.get(base + "/app/inventory")
        got = settled_quantities(browser, {"DMC 321": "3", "DMC 798": "3"})
        assert got == {"DMC 321": "3", "DMC 798": "3"}, got
        browser.get(project)
        assert "Written with one bar of signal" in browser.find_element(By.ID, "entries").text
    finally:
        server.close()


def test_server_silent_while_online(browser, shots):
    """A server that takes requests and never answers (a weak signal, a captive portal: stopped
    with SIGSTOP here, so connections open and nothing comes back). The browser says online and
    nothing fails: a page opened then shows its kept copy after a few seconds and says so; a step
    and a purchase are kept on the device once their deadline passes, and sent when the server
    answers again — the purchase counted once, the step not twice."""
    server = StitchServer().start()
    base = server.base
    try:
        one_dmc_321_short_by_two(browser, base, "Ines", "ines@example.com")
        browser.get(base + "/app/inventory")
        WebDriverWait(browser, 20).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        for path in ["/app/inventory", "/app/shopping"]:
            browser.get(base + path)
            WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
        until_kept(browser, ["/app/inventory", "/app/shopping"])
        os.kill(server.proc.pid, signal.SIGSTOP)
        try:
            assert browser.execute_script("return navigator.onLine") is True
            browser.get(base + "/app/inventory")  # the worker waits a few seconds, then shows its copy
            WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "offline-note"))
            assert browser.execute_script("return document.documentElement.hasAttribute('data-kept-copy')")
            assert "server isn\u2019t answering" in browser.find_element(By.ID, "offline-note").text
            row = browser.find_element(By.CSS_SELECTOR, "#threads .row")
            click(browser, row.find_element(By.CSS_SELECTOR, "button[aria-label='One more DMC 321']"))
            WebDriverWait(browser, 20).until(lambda d: "pending" in row.get_attribute("class"))
            assert row.find_element(By.CSS_SELECTOR, "output.qty").text == "2"
            snap(browser, shots, "silent-server-step-kept")
            browser.get(base + "/app/shopping")
            WebDriverWait(browser, 20).until(lambda d: d.find_elements(By.ID, "offline-note"))
            click(browser, browser.find_element(By.CSS_SELECTOR, "button[aria-label='Bought DMC 321']"))
            WebDriverWait(browser, 20).until(lambda d: "Bought 2 — kept on this device" in d.find_element(By.ID, "shopping").text)
            assert "didn't answer" in browser.find_element(By.ID, "outbox-kept").text
            kept = json.loads(browser.execute_script("return localStorage.getItem('stitch-outbox')"))
            assert sorted(c["type"] for c in kept) == ["purchase", "step"], kept
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        # The server answers again (and reads the requests the page gave up on): the page sends
        # what it kept on its own; 1, one more, and 2 bought is 4.
        WebDriverWait(browser, 40).until(lambda d: d.find_elements(By.ID, "outbox-sent"))
        assert browser.execute_script("return localStorage.getItem('stitch-outbox')") == "[]"
        browser.get(base + "/app/inventory")
        assert not browser.find_elements(By.ID, "offline-note")
        got = settled_quantities(browser, {"DMC 321": "4"})
        assert got == {"DMC 321": "4"}, got
    finally:
        server.close()


def test_a_big_inventory_comes_a_page_at_a_time_and_is_searched_whole_offline(shots):
    """250 threads: the inventory shows the first 100 and "Show 100 more" adds the next in place
    (no reload; the stepper works on them); the search finds any thread on the server. Once the
    worker runs the app the page keeps every thread as JSON, so with no signal (the server gone,
    the browser offline) a search of the kept page reaches a thread it never showed."""
    server = StitchServer().start()
    base = server.base
    browser = chromium()
    try:
        sign_up(browser, base, "Ida", "ida@example.com")
        token = api_token(base, "ida@example.com")
        for n in range(1, 251):
            api(base, token, "POST", "/threads", {"brand": "DMC", "number": str(n), "quantity": n % 3})
        browser.get(base + "/app/inventory")
        assert len(rows(browser)) == 100 and rows(browser)[-1] == "DMC 100"
        assert browser.find_element(By.ID, "more").text.startswith("Showing 100 of 250 threads.")
        browser.execute_script("window.__samePage = true")
        click(browser, browser.find_element(By.ID, "more-threads"))
        WebDriverWait(browser, 30).until(lambda d: len(rows(d)) == 200)
        assert browser.execute_script("return window.__samePage === true"), "the rows were added in place"
        assert browser.current_url.endswith("/app/inventory?shown=200")
        assert browser.find_element(By.ID, "more-threads").text == "Show 50 more"
        # DMC 150 (150 % 3 = 0) came with the second page: its stepper answers as the first page's do.
        click(browser, browser.find_element(By.CSS_SELECTOR, "button[aria-label='One more DMC 150']"))
        WebDriverWait(browser, 30).until(lambda d: quantities(d).get("DMC 150") == "1")
        snap(browser, shots, "inventory-more")
        browser.get(base + "/app/inventory?q=239")
        assert rows(browser) == ["DMC 239"]

        # With the worker in charge, the page keeps every thread for searching offline.
        browser.get(base + "/app/inventory")
        WebDriverWait(browser, 30).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        browser.get(base + "/app/inventory")
        WebDriverWait(browser, 30).until(lambda d: d.execute_async_script(
            "var done = arguments[0]; caches.match('/app/inventory.json', {cacheName: 'stitch-pages-v1'})"
            ".then(function (r) { return r ? r.json() : null; }).then(function (d) { done(d ? d.threads.length : 0); });") == 250)
        until_kept(browser, ["/app/inventory"])
        # The server gone while the phone believes it is online: the worker's kept page, and
        # "Show more" says no rows came instead of leaving for an error page.
        server.stop()
        browser.get(base + "/app/inventory")
        assert len(rows(browser)) == 100
        click(browser, browser.find_element(By.ID, "more-threads"))
        WebDriverWait(browser, 30).until(lambda d: "didn't answer" in "".join(e.text for e in d.find_elements(By.ID, "more-status")))
        assert len(rows(browser)) == 100 and browser.current_url.endswith("/app/inventory")
        assert browser.find_element(By.ID, "more-threads").get_attribute("aria-busy") is None
        browser.execute_cdp_cmd("Network.enable", {})
        network(browser, offline=True)
        browser.get(base + "/app/inventory")
        assert browser.find_element(By.ID, "offline-note") and len(rows(browser)) == 100
        search = browser.find_element(By.NAME, "q")
        search.send_keys("239")
        search.submit()
        WebDriverWait(browser, 30).until(lambda d: d.find_elements(By.ID, "offline-count"))
        assert rows(browser) == ["DMC 239"]
        assert browser.find_element(By.ID, "offline-count").text == "1 of 250 threads match “239” (offline)"
        assert quantities(browser) == {"DMC 239": str(239 % 3)}
        snap(browser, shots, "offline-inventory-search")
    finally:
        browser.quit()
        server.close()


def test_list_thumbnails_are_kept_for_offline_and_forgotten_at_sign_out(photos, shots):
    """The stash lists its canvases with the small size made for list rows (?w=192), never the
    original; once seen with the worker in charge those thumbnails show offline too; signing out
    forgets them with the kept pages."""
    server = StitchServer().start()
    base = server.base
    browser = chromium()
    try:
        browser.set_window_size(*SIZES["phone"])
        sign_up(browser, base, "Hal", "hal@example.com")
        browser.get(base + "/app/stash/new")
        browser.find_element(By.NAME, "image").send_keys(photos[0])
        fill(browser, "designer", "Melissa Shirley")
        fill(browser, "designName", "Nutcracker")
        submit(browser, "Add canvas")
        browser.get(base + "/app/stash")
        WebDriverWait(browser, 20).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        browser.get(base + "/app/stash")
        thumb = browser.find_element(By.CSS_SELECTOR, "#main img.thumb")
        assert thumb.get_attribute("src").endswith("?w=192")
        WebDriverWait(browser, 10).until(lambda d: d.execute_script("return arguments[0].naturalWidth", thumb) > 0)
        kept = ("var done = arguments[0]; caches.open('stitch-pictures-v1').then(function (c) { return c.keys(); })"
                ".then(function (k) { done(k.map(function (r) { return r.url; })); });")
        WebDriverWait(browser, 10).until(lambda d: len(d.execute_async_script(kept)) == 1)
        assert browser.execute_async_script(kept)[0].endswith("?w=192")

        until_kept(browser, ["/app/stash"])
        browser.execute_cdp_cmd("Network.enable", {})
        network(browser, offline=True)
        server.stop()
        browser.get(base + "/app/stash")
        assert browser.find_element(By.ID, "offline-note")
        thumb = browser.find_element(By.CSS_SELECTOR, "#main img.thumb")
        WebDriverWait(browser, 10).until(lambda d: d.execute_script("return arguments[0].naturalWidth", thumb) > 0)
        snap(browser, shots, "offline-stash-thumbnails")

        # Signing out (the sign-in page) forgets the pictures with the pages.
        browser.get(base + "/app/signin")
        WebDriverWait(browser, 10).until(lambda d: d.execute_async_script(
            "var done = arguments[0]; caches.has('stitch-pictures-v1').then(done);") is False)
    finally:
        browser.quit()
        server.close()



def api_token(base, email, password="correct horse"):
    """An API access token for the account (as the phone app signs in)."""
    login = urllib.request.Request(base + "/auth/login", method="POST", headers={"Content-Type": "application/json"},
                                   data=json.dumps({"email": email, "password": password}).encode())
    return json.load(urllib.request.urlopen(login, timeout=30))["accessToken"]


def api(base, token, method, path, body=None):
    request = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
    return json.load(urllib.request.urlopen(request, timeout=30))


def marked_in_list(browser):
    """The text of the row marked in the list beside an item, once it is shown: rows fade in
    (`reveal`, staggered), and until a row's fade has begun WebDriver reads no text of it."""
    marked = browser.find_element(By.CSS_SELECTOR, ".split-list [aria-current=page]")
    WebDriverWait(browser, 10).until(lambda d: marked.text.strip())
    return " ".join(marked.text.split())


def side_by_side(browser, left, right):
    """Whether `left` and `right` (CSS selectors) are both shown, the first wholly left of the second."""
    a, b = browser.find_element(By.CSS_SELECTOR, left), browser.find_element(By.CSS_SELECTOR, right)
    return a.is_displayed() and b.is_displayed() and a.rect["x"] + a.rect["width"] <= b.rect["x"]


def test_tablet_split_view(shots):
    """From 1024 px a list and its detail sit side by side (inventory | thread, stash | canvas,
    projects | project): the list page says where an item will show, an item's page carries its
    list with that item marked (scrolled to it), and a tap in that list opens the next. At 390 px
    the pages are the phone's: neither the list beside nor the empty place is shown."""
    server = StitchServer().start()
    base = server.base
    browser = chromium()
    try:
        sign_up(browser, base, "Jo", "jo@example.com")
        token = api_token(base, "jo@example.com")
        threads = [api(base, token, "POST", "/threads", {"brand": "DMC", "number": str(n), "quantity": n % 4}) for n in range(1, 141)]
        nutcracker = api(base, token, "POST", "/canvases", {"designer": "Melissa Shirley", "designName": "Nutcracker"})
        api(base, token, "POST", "/canvases", {"designer": "Kirk & Bradley", "designName": "Santa's Workshop"})
        project = api(base, token, "POST", "/projects", {"canvasId": nutcracker["id"], "status": "wip"})

        browser.set_window_size(1024, 768)
        browser.get(base + "/app/stash")
        assert side_by_side(browser, ".split-primary", ".split-empty")
        assert browser.find_element(By.CSS_SELECTOR, ".split-empty").text == "Choose a canvas to see it here."
        snap_wide = lambda name: browser.save_screenshot(os.path.join(shots, f"{name}-1024.png"))
        snap_wide("split-stash")
        press(browser, browser.find_element(By.LINK_TEXT, "Nutcracker"))
        assert browser.find_element(By.CSS_SELECTOR, ".split-detail h1").text == "Nutcracker"
        assert side_by_side(browser, ".split-list", ".split-detail")
        assert marked_in_list(browser) == "Nutcracker"
        snap_wide("split-canvas")
        # The other canvas, from the list beside this one.
        press(browser, browser.find_element(By.CSS_SELECTOR, ".split-list").find_element(By.LINK_TEXT, "Santa's Workshop"))
        assert browser.find_element(By.CSS_SELECTOR, ".split-detail h1").text == "Santa's Workshop"
        assert marked_in_list(browser) == "Santa's Workshop"

        # A thread far down the inventory: the rows around it, it marked and scrolled to.
        browser.get(base + "/app/inventory")
        assert side_by_side(browser, ".split-primary", ".split-empty")
        far = next(t for t in threads if t["number"] == "120")
        browser.get(base + "/app/inventory/" + far["id"])
        assert side_by_side(browser, ".split-list", ".split-detail")
        assert marked_in_list(browser) == "DMC 120"
        current = browser.find_element(By.CSS_SELECTOR, ".split-list [aria-current=page]")
        aside = browser.find_element(By.CSS_SELECTOR, ".split-list")
        assert browser.execute_script(
            "var a = arguments[0].getBoundingClientRect(), r = arguments[1].getBoundingClientRect(); return r.top >= a.top && r.bottom <= a.bottom;",
            aside, current), "the marked thread is in view in the list"
        assert "100 of 140 threads" in aside.text
        snap_wide("split-thread")

        browser.get(base + "/app/projects/" + project["id"])
        assert side_by_side(browser, ".split-list", ".split-detail")
        assert marked_in_list(browser) == "Nutcracker"
        snap_wide("split-project")

        # A phone: the page alone.
        browser.set_window_size(*SIZES["phone"])
        browser.get(base + "/app/projects/" + project["id"])
        assert not browser.find_element(By.CSS_SELECTOR, ".split-list").is_displayed()
        assert browser.find_element(By.CSS_SELECTOR, ".split-detail h1").is_displayed()
        browser.get(base + "/app/stash")
        assert not browser.find_element(By.CSS_SELECTOR, ".split-empty").is_displayed()
        assert browser.find_element(By.CSS_SELECTOR, "#canvases").is_displayed()
    finally:
        browser.quit()
        server.close()


def add_one_thread(browser, number, quantity, color_name=None):
    """Fills the open "Add thread" form for one DMC thread (not "add another") and sends it."""
    fill(browser, "brand", "DMC")
    fill(browser, "number", number)
    if color_name:
        fill(browser, "colorName", color_name)
    fill(browser, "quantity", quantity)
    add_another = browser.find_element(By.ID, "f-addAnother")
    if add_another.is_selected():
        click(browser, add_another)
    submit(browser, "Add thread")


def outbox(browser):
    return json.loads(browser.execute_script("return localStorage.getItem('stitch-outbox') || '[]'"))


def test_kept_changes_go_to_their_own_account(shots):
    """Ann adds a thread with no network; Bea signs in on the same browser (another tab) before
    Ann's page is back online. Ann's page doesn't send her change into Bea's account: it says the
    change waits for Ann, keeps it, and sends it to Ann's account when she signs in again. Signing
    out with a change not yet sent asks first."""
    server = StitchServer().start()
    base = server.base
    browser = chromium()
    try:
        browser.set_window_size(*SIZES["phone"])
        sign_up(browser, base, "Bea", "bea-kept@example.com")
        browser.delete_all_cookies()
        sign_up(browser, base, "Ann", "ann-kept@example.com")
        ann_tab = browser.current_window_handle
        browser.get(base + "/app/inventory")
        WebDriverWait(browser, 20).until(lambda d: d.execute_script("return !!navigator.serviceWorker.controller"))
        for path in ["/app/inventory", "/app/inventory/new"]:
            browser.get(base + path)
            WebDriverWait(browser, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
        until_kept(browser, ["/app/inventory", "/app/inventory/new"])
        network(browser, offline=True)
        add_one_thread(browser, "798", "3")
        WebDriverWait(browser, 15).until(lambda d: len(outbox(d)) == 1)
        ann_id = outbox(browser)[0]["user"]

        # Ann's session ends (it expired, or she signed out on another device) and Bea signs in on
        # this browser, in another tab (online: the emulation is the first tab's).
        browser.switch_to.new_window("tab")
        bea_tab = browser.current_window_handle
        browser.execute_cdp_cmd("Network.clearBrowserCookies", {})
        sign_in(browser, base, "bea-kept@example.com")
        WebDriverWait(browser, 10).until(lambda d: d.current_url == base + "/app/inventory")

        # Ann's page is back online: it doesn't send into Bea's account, and says why.
        browser.switch_to.window(ann_tab)
        network(browser, offline=False)
        WebDriverWait(browser, 20).until(lambda d: "another account has signed in" in (
            d.execute_script("var b = document.getElementById('outbox-kept'); return b ? b.textContent : ''")))
        snap(browser, shots, "kept-for-its-own-account")
        assert [c["user"] for c in outbox(browser)] == [ann_id]
        bea = api_token(base, "bea-kept@example.com")
        assert api(base, bea, "GET", "/threads") == []

        # Ann signs in again (Bea signs out first): the change reaches Ann's account.
        browser.switch_to.window(bea_tab)
        browser.get(base + "/app/settings")
        submit(browser, "Sign out")
        sign_in(browser, base, "ann-kept@example.com")
        WebDriverWait(browser, 30).until(lambda d: outbox(d) == [])
        ann = api_token(base, "ann-kept@example.com")
        assert [(t["brand"], t["number"], t["quantity"]) for t in api(base, ann, "GET", "/threads")] == [("DMC", "798", 3)]
        assert api(base, bea, "GET", "/threads") == []

        # A change still kept on the device (as the page keeps them), then "Sign out": asked
        # first; "Cancel" keeps Ann signed in. (Signing out needs the network, so its button is
        # off while offline: the kept change is put where the page keeps them, online.)
        browser.get(base + "/app/settings")
        browser.execute_script("""
            var user = document.getElementById('main').getAttribute('data-user');
            localStorage.setItem('stitch-outbox', JSON.stringify([{ user: user, type: 'step', id: 'c0ffee00-0000-4000-8000-000000000001',
              fields: { thread: 'c0ffee00-0000-4000-8000-000000000002', delta: 1 }, changedAt: new Date().toISOString(), label: 'DMC 798 (one more)' }]));""")
        browser.find_element(By.XPATH, "//button[normalize-space()='Sign out']").click()
        alert = WebDriverWait(browser, 5).until(lambda d: d.switch_to.alert)
        assert "1 change made offline hasn\u2019t been sent yet" in alert.text, alert.text
        alert.dismiss()
        assert browser.current_url == base + "/app/settings" and len(outbox(browser)) == 1
        browser.execute_script("localStorage.removeItem('stitch-outbox')")
    finally:
        browser.quit()
        server.close()


# A 48-megapixel phone photo, made in the page: bands and noise (so it stays big as JPEG, as a
# photo does), JPEG at quality 0.95, with an EXIF block saying "turn 90° clockwise" (taken
# sideways), padded after its end to at least `bytes` as phones store extras there; then chosen
# in the file input `arguments[1]` names, as a person would (its files set, its change event).
CHOOSE_PHONE_PHOTO = """
var bytes = arguments[0], input = document.querySelector(arguments[1]), done = arguments[arguments.length - 1];
var c = document.createElement('canvas'); c.width = 8160; c.height = 6120;
var g = c.getContext('2d');
var tile = document.createElement('canvas'); tile.width = tile.height = 256;
var t = tile.getContext('2d'), noise = t.createImageData(256, 256);
for (var i = 0; i < noise.data.length; i++) noise.data[i] = (i % 4 === 3) ? 255 : 112 + Math.floor(Math.random() * 16);
t.putImageData(noise, 0, 0);
g.fillStyle = g.createPattern(tile, 'repeat'); g.fillRect(0, 0, c.width, c.height);
g.fillStyle = 'rgb(224, 32, 32)'; g.fillRect(0, 0, 2040, 1530);  // a red corner, top left as stored
c.toBlob(function (blob) {
  blob.arrayBuffer().then(function (buffer) {
    var jpeg = new Uint8Array(buffer);
    var tiff = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0];
    var payload = [0x45, 0x78, 0x69, 0x66, 0, 0].concat(tiff), length = payload.length + 2;
    var head = [0xFF, 0xD8, 0xFF, 0xE1, length >> 8, length & 0xFF].concat(payload);
    var parts = [new Uint8Array(head), jpeg.subarray(2)];
    var size = head.length + jpeg.length - 2;
    if (size < bytes) parts.push(new Uint8Array(bytes - size));
    var file = new File(parts, 'IMG_4032.JPG', { type: 'image/jpeg' }), list = new DataTransfer();
    list.items.add(file);
    input.files = list.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
    done({ size: file.size, jpeg: jpeg.length });
  });
}, 'image/jpeg', 0.95);
"""


def test_big_phone_photo_is_made_smaller_in_the_browser(shots):
    """A 48-megapixel photo of 12 MB chosen for a canvas is made smaller in the page before it
    is sent: a JPEG under 10 MB, at most 4,096 px, upright as it was taken (EXIF applied); the
    canvas then shows it. (Without the page's script the server does the same: BigPhotoTests.)"""
    with own_server_signed_up("Ann", "ann-big@example.com") as (base, browser):
        browser.get(base + "/app/stash/new")
        browser.set_script_timeout(120)
        made = browser.execute_async_script(CHOOSE_PHONE_PHOTO, 12 * 1024 * 1024, "input[name=image]")
        assert made["size"] >= 12 * 1024 * 1024, made
        WebDriverWait(browser, 120).until(lambda d: d.execute_script(
            "var i = document.querySelector('input[name=image]'); return !i.hasAttribute('data-shrinking') && i.files[0].size < 10 * 1024 * 1024"))
        sent = browser.execute_async_script("""
            var done = arguments[arguments.length - 1], file = document.querySelector('input[name=image]').files[0];
            createImageBitmap(file, { imageOrientation: 'none' }).then(function (bitmap) {
              var c = document.createElement('canvas'); c.width = bitmap.width; c.height = bitmap.height;
              var g = c.getContext('2d'); g.drawImage(bitmap, 0, 0);
              var topRight = g.getImageData(bitmap.width - 20, 20, 1, 1).data, topLeft = g.getImageData(20, 20, 1, 1).data;
              done({ size: file.size, type: file.type, name: file.name, width: bitmap.width, height: bitmap.height,
                     topRight: [topRight[0], topRight[1]], topLeft: [topLeft[0], topLeft[1]] });
            });""")
        assert sent["type"] == "image/jpeg" and sent["name"] == "IMG_4032.jpg" and sent["size"] < 10 * 1024 * 1024, sent
        # Upright without any EXIF of its own: 3,072 wide, 4,096 tall; the red corner went to the top right.
        assert (sent["width"], sent["height"]) == (3072, 4096), sent
        assert sent["topRight"][0] > 150 and sent["topRight"][1] < 100 and not (sent["topLeft"][0] > 150 and sent["topLeft"][1] < 100), sent
        fill(browser, "designer", "Zecca")
        fill(browser, "designName", "Sideways bird")
        submit(browser, "Add canvas")
        assert "Sideways bird" in browser.find_element(By.TAG_NAME, "h1").text
        hero = browser.find_element(By.CSS_SELECTOR, "img.hero")
        WebDriverWait(browser, 20).until(lambda d: d.execute_script("return arguments[0].naturalWidth", hero) > 0)
        assert browser.execute_script("return arguments[0].naturalHeight > arguments[0].naturalWidth", hero)
        snap(browser, shots, "canvas-from-a-big-photo")


def test_keyboard_only(shots):
    """Someone who uses only a keyboard: signs in, adds a thread and steps its quantity with Tab,
    typing, Enter and Space — every stop on the way showing where the focus is."""
    with own_server_signed_up("Kay", "kay-keys@example.com", size="desktop") as (base, browser):
        browser.delete_all_cookies()
        browser.get(base + "/app/signin")
        tab_to(browser, lambda e: e.get_attribute("name") == "email", what="the email field")
        keys(browser, "kay-keys@example.com")
        tab_to(browser, lambda e: e.get_attribute("name") == "password", what="the password field")
        keys(browser, "correct horse", Keys.ENTER)
        WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("/app/inventory"))

        tab_to(browser, lambda e: e.get_attribute("aria-label") == "Add thread", what="Add thread")
        keys(browser, Keys.ENTER)
        WebDriverWait(browser, 10).until(lambda d: d.current_url.endswith("/app/inventory/new"))
        tab_to(browser, lambda e: e.get_attribute("name") == "brand", what="the brand field")
        retype(browser, "DMC")
        tab_to(browser, lambda e: e.get_attribute("name") == "number", what="the number field")
        keys(browser, "310")
        tab_to(browser, lambda e: e.get_attribute("name") == "quantity", what="the quantity field")
        retype(browser, "2")
        another = tab_to(browser, lambda e: e.get_attribute("id") == "f-addAnother", what="Add another")
        if another.is_selected():
            keys(browser, Keys.SPACE)
        tab_to(browser, lambda e: e.tag_name == "button" and e.text.strip() == "Add thread", what="the Add thread button")
        keys(browser, Keys.ENTER)
        try:
            WebDriverWait(browser, 10).until(lambda d: "/app/inventory/new" not in d.current_url)
        except Exception:
            raise AssertionError(browser.current_url + " " + browser.find_element(By.TAG_NAME, "main").text[:600])
        rows_310 = browser.find_elements(By.XPATH, "//li[.//a[normalize-space()='DMC 310']]")
        assert rows_310, browser.current_url + " " + browser.find_element(By.TAG_NAME, "main").text[:600]
        row = rows_310[0]
        assert row.find_element(By.CSS_SELECTOR, "output").get_attribute("textContent") == "2"

        more = tab_to(browser, lambda e: e.get_attribute("aria-label") == "One more DMC 310", what="One more DMC 310")
        keys(browser, Keys.SPACE)
        WebDriverWait(browser, 5).until(lambda d: row.find_element(By.CSS_SELECTOR, "output").get_attribute("textContent") == "3")
        # The focus stays on the button pressed, so pressing again steps again.
        assert browser.switch_to.active_element == more
        keys(browser, Keys.ENTER)
        WebDriverWait(browser, 5).until(lambda d: row.find_element(By.CSS_SELECTOR, "output").get_attribute("textContent") == "4")
        snap(browser, shots, "keyboard-inventory")
