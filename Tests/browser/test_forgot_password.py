"""Forgot password on the Stitchuation web app, in headless Chromium, with the mail going through a
real SMTP server (aiosmtpd, Tests/support/smtp_sink.py) over STARTTLS with a password, configured
as production is (SMTP_URL, SMTP_FROM, SMTP_CA_FILE, PUBLIC_URL): "Forgot password?", the address,
the mail as it arrived, its link, the new password twice, signed in with it — on a phone and a
desktop; the used link then says it has expired."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest
from conftest import ROOT, SIZES, fill, follow, snap, stitch_server, submit
from selenium.webdriver.common.by import By

USER, PASSWORD = "stitch-mailer", "mail-secret-1"


@pytest.fixture(scope="module")
def mailbox():
    folder = tempfile.mkdtemp(prefix="smtp-sink-")
    proc = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests", "support", "smtp_sink.py"), folder,
                             "--tls", "starttls", "--user", f"{USER}:{PASSWORD}"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("port "), f"the SMTP server did not start: {line!r}"
    yield folder, int(line.split()[1])
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def server(mailbox):
    folder, port = mailbox
    yield from stitch_server(of_base=lambda base: {
        "SMTP_URL": f"smtp://{USER}:{PASSWORD}@localhost:{port}", "SMTP_FROM": "Stitchuation <no-reply@stitch.test>",
        "SMTP_CA_FILE": os.path.join(folder, "cert.pem"), "PUBLIC_URL": base})


def messages(folder, confirmations=False):
    """The mails received, in order; the address confirmations every registration mails in the
    background are left out unless asked for."""
    out = []
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".json")):
        with open(os.path.join(folder, name)) as f:
            mail = json.load(f)
        if confirmations or mail["subject"] != "Confirm your Stitchuation address":
            out.append(mail)
    return out


def wait_for_mail(folder, count):
    for _ in range(300):
        found = messages(folder)
        if len(found) >= count:
            return found
        time.sleep(0.1)
    raise AssertionError(f"{count} message(s) expected, {len(messages(folder))} arrived")


def register(server, email, password):
    body = json.dumps({"email": email, "password": password, "displayName": "Ann"}).encode()
    request = urllib.request.Request(server + "/auth/register", data=body, headers={"Content-Type": "application/json"})
    assert urllib.request.urlopen(request, timeout=30).status == 201


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_forgot_password(server, mailbox, browser, shots, size):
    folder, _ = mailbox
    email = f"ann-{size}@example.com"
    register(server, email, "correct horse")
    browser.set_window_size(*SIZES[size])
    browser.delete_all_cookies()
    browser.get(server + "/app/signin")
    follow(browser, browser.find_element(By.LINK_TEXT, "Forgot password?"))
    fill(browser, "email", email)
    before = len(messages(folder))
    submit(browser, "Email me a link")
    assert "If an account signs in with that address" in browser.page_source

    mail = wait_for_mail(folder, before + 1)[-1]
    assert mail["rcpt_tos"] == [email] and mail["tls"] and mail["user"] == USER, mail
    assert mail["subject"] == "Choose a new Stitchuation password"
    link = re.search(r"\S+/app/reset-password\?token=[A-Za-z0-9_-]{43}", mail["body"]).group(0)
    assert link.startswith(server + "/"), link

    browser.get(link)
    if size == "phone":
        snap(browser, shots, "reset-password")
    fill(browser, "newPassword", "new battery staple")
    fill(browser, "confirmPassword", "new battery staple")
    submit(browser, "Set new password")
    assert browser.current_url.startswith(server + "/app/signin"), browser.current_url
    assert "Your password is changed" in browser.page_source

    fill(browser, "email", email)
    fill(browser, "password", "new battery staple")
    submit(browser, "Sign in")
    assert browser.current_url == server + "/app/inventory", browser.current_url

    browser.get(link)
    assert "expired or was already used" in browser.page_source
    assert browser.find_element(By.LINK_TEXT, "Email me a new link").is_displayed()
