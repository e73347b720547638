"""Sign in with Apple on the Stitchuation web app, in headless Chromium, against Apple's stand-in
(standins.py): the button, Apple's page, and back signed in; and the login-CSRF attack — an attacker
starts a sign-in with their own Apple ID and has the victim's browser finish it — signs nobody in."""
import http.cookiejar
import re
import urllib.parse
import urllib.request

import pytest
from conftest import click, press, snap, stitch_server
from standins import StandIns
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


@pytest.fixture(scope="module")
def apple():
    stand_in = StandIns()
    yield stand_in
    stand_in.stop()


@pytest.fixture(scope="module")
def server(apple):
    yield from stitch_server(of_base=apple.env)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def attacker_state(server):
    """The attacker's own browser (a cookie jar): the sign-in page, then "Sign in with Apple", whose
    redirect to Apple names the state and the nonce's hash."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    page = opener.open(server + "/app/signin").read().decode()
    csrf = re.search(r'name="_csrf" value="([^"]+)"', page).group(1)
    try:
        opener.open(urllib.request.Request(server + "/app/signin/apple", data=urllib.parse.urlencode({"_csrf": csrf}).encode()))
        raise AssertionError("expected a redirect to Apple")
    except urllib.error.HTTPError as redirect:
        location = redirect.headers["Location"]
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(location).query))
    return query["state"], query["nonce"]


def test_sign_in_with_apple(server, apple, browser, shots):
    browser.delete_all_cookies()
    browser.get(server + "/app/signin")
    press(browser, browser.find_element(By.CSS_SELECTOR, "button.apple"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Apple ID"
    click(browser, browser.find_element(By.ID, "allow"))
    WebDriverWait(browser, 10).until(lambda d: d.current_url == server + "/app/inventory")


def test_login_csrf_signs_nobody_in(server, apple, browser, shots):
    state, nonce = attacker_state(server)
    token = urllib.request.urlopen(apple.base + "/apple/mint?" + urllib.parse.urlencode({"sub": "attacker-apple-id", "nonce": nonce})).read().decode()
    # The victim, signed out, visits the attacker's page, which posts the attacker's sign-in to the site.
    browser.delete_all_cookies()
    browser.get(apple.base + "/apple/lure?" + urllib.parse.urlencode({"action": server + "/app/signin/apple/callback", "state": state, "id_token": token}))
    WebDriverWait(browser, 10).until(lambda d: "/app/signin/apple/callback" in d.current_url)
    assert "We couldn't verify that sign-in with Apple" in browser.page_source
    snap(browser, shots, "apple-login-csrf-refused")
    assert not [c for c in browser.get_cookies() if c["name"] == "stitch_session"]
    browser.get(server + "/app/inventory")
    assert "/app/signin" in browser.current_url, "the victim is not signed into the attacker's account"
