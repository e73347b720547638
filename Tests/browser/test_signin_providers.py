"""Instagram and TikTok sign-in on the Stitchuation web app, in headless Chromium, against the
providers' stand-ins (standins.py): the button, the provider's page, "Allow", and back signed
in — on a phone and on a desktop; "Cancel" comes back signed out with a clear message."""
import pytest
from conftest import SIZES, press, snap, stitch_server
from standins import StandIns
from selenium.webdriver.common.by import By

@pytest.fixture(scope="module")
def providers():
    stand_in = StandIns()
    yield stand_in
    stand_in.stop()


@pytest.fixture(scope="module")
def server(providers):
    yield from stitch_server(of_base=providers.env)


def sign_out(browser, server):
    browser.delete_all_cookies()
    browser.get(server + "/app/signin")


@pytest.mark.parametrize("provider,name,shown", [("instagram", "Instagram", "stitchy_ig"), ("tiktok", "TikTok", "Stitchy TT")])
def test_provider_sign_in(server, browser, shots, provider, name, shown):
    for size in ["phone", "desktop"]:
        browser.set_window_size(*SIZES[size])
        sign_out(browser, server)
        button = browser.find_element(By.XPATH, f"//button[normalize-space()='Continue with {name}']")
        assert button.is_displayed()
        if size == "phone":
            snap(browser, shots, "signin-providers")
        press(browser, button)
        # The provider's own page: "Cancel" first, then "Allow".
        assert browser.find_element(By.TAG_NAME, "h1").text == name
        press(browser, browser.find_element(By.ID, "deny"))
        assert f"We couldn't complete the sign-in with {name}" in browser.page_source
        assert browser.current_url.startswith(server + f"/app/signin/{provider}/callback")
        press(browser, browser.find_element(By.XPATH, f"//button[normalize-space()='Continue with {name}']"))
        press(browser, browser.find_element(By.ID, "allow"))
        assert browser.current_url == server + "/app/inventory", browser.current_url
        browser.get(server + "/app/settings")
        assert shown in browser.page_source
