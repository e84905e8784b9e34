"""The passkey web app (seed 004's RP) through its own pages in Chromium, with DevTools' virtual
authenticator (CTAP2, internal, resident keys, user verification): sign up, sign out, sign in, add a
second passkey, both with the browser's WebAuthn JSON helpers and with the page's own base64url code;
and the same pages used from origins the RP does not accept."""

import http.server
import threading
import urllib.error
import urllib.request
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
from selenium.webdriver.support.ui import WebDriverWait

# Removes the WebAuthn JSON helpers before any script runs, so the page must convert base64url itself.
WITHOUT_JSON_HELPERS = """
delete PublicKeyCredential.parseCreationOptionsFromJSON;
delete PublicKeyCredential.parseRequestOptionsFromJSON;
delete PublicKeyCredential.prototype.toJSON;
"""


def add_authenticator(driver, transport=VirtualAuthenticatorOptions.Transport.INTERNAL):
    options = VirtualAuthenticatorOptions()
    options.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
    options.transport = transport
    options.has_resident_key = True
    options.has_user_verification = True
    options.is_user_verified = True
    driver.add_virtual_authenticator(options)


def status_says(driver, text, timeout=15):
    def check(d):
        shown = d.find_element(By.ID, "status").text
        return text in shown and shown
    return WebDriverWait(driver, timeout).until(check, f"the status never said {text!r}")


def press(driver, form_id):
    driver.find_element(By.CSS_SELECTOR, f"#{form_id} button").click()


@pytest.mark.parametrize("helpers", [True, False], ids=["browser-json-helpers", "manual-base64url"])
def test_sign_up_sign_out_sign_in_add_passkey(server, open_browser, helpers):
    browser = open_browser()
    driver = browser.driver
    if not helpers:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WITHOUT_JSON_HELPERS})
    driver.get(server.url + "/")
    browser.screenshot("front-page")
    driver.find_element(By.LINK_TEXT, "Passkey web app").click()
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.ID, "sign-up"))
    helper_type = driver.execute_script("return typeof PublicKeyCredential.parseCreationOptionsFromJSON")
    assert helper_type == ("function" if helpers else "undefined")
    add_authenticator(driver)
    assert not driver.find_element(By.ID, "wrong-origin").is_displayed()
    browser.screenshot("passkey-app")

    name = f"person-{uuid.uuid4().hex[:8]}"
    driver.find_element(By.ID, "user-name").send_keys(name)
    press(driver, "sign-up")
    status_says(driver, f"Account {name} created")
    browser.screenshot("signed-up")
    assert len(driver.get_credentials()) == 1

    # The same name again: the server says why in words.
    driver.find_element(By.ID, "user-name").clear()
    driver.find_element(By.ID, "user-name").send_keys(name)
    press(driver, "sign-up")
    assert "already registered" in status_says(driver, "already registered")

    press(driver, "sign-in")
    status_says(driver, f"Signed in as {name}")
    assert driver.find_element(By.ID, "account-name").text == name
    assert driver.find_element(By.ID, "signed-in").is_displayed()
    browser.screenshot("signed-in")

    press(driver, "sign-out")
    status_says(driver, "Signed out")
    assert driver.find_element(By.ID, "signed-out").is_displayed()
    browser.screenshot("signed-out")

    press(driver, "sign-in")
    status_says(driver, f"Signed in as {name}")
    # This device already has the account's passkey (the server lists it in excludeCredentials), so the
    # second one goes on a security key, which the options allow (no authenticatorAttachment forced).
    press(driver, "add-passkey")
    status_says(driver, "already holds a passkey")
    driver.remove_virtual_authenticator()
    add_authenticator(driver, VirtualAuthenticatorOptions.Transport.USB)
    press(driver, "add-passkey")
    status_says(driver, "Another passkey was added")
    browser.screenshot("second-passkey")
    credentials = driver.get_credentials()
    assert len(credentials) == 1 and credentials[0].is_resident_credential
    press(driver, "sign-out")
    status_says(driver, "Signed out")
    press(driver, "sign-in")
    status_says(driver, f"Signed in as {name}")

    # A prompt the person dismisses is explained, not thrown away.
    driver.execute_script("document.querySelector('#sign-out button').click()")
    status_says(driver, "Signed out")
    driver.remove_all_credentials()
    press(driver, "sign-in")
    status_says(driver, "closed or timed out", timeout=90)
    browser.screenshot("no-passkey")


def test_an_address_the_browser_refuses_for_the_rp_id_is_explained(server, open_browser):
    browser = open_browser()
    driver = browser.driver
    driver.get(f"http://127.0.0.1:{server.port}/passkeys")
    add_authenticator(driver)
    notice = driver.find_element(By.ID, "wrong-origin")
    assert notice.is_displayed() and server.url in notice.text
    driver.find_element(By.ID, "user-name").send_keys(f"elsewhere-{uuid.uuid4().hex[:8]}")
    press(driver, "sign-up")
    status_says(driver, "cannot use passkeys")
    browser.screenshot("ip-address-origin")
    assert driver.get_credentials() == []


class Proxy:
    """Serves the dev server's pages and endpoints at another origin on the same RP ID (localhost), as a
    second site would: the browser accepts the ceremony there, so only the RP can refuse it."""

    def __init__(self, target):
        class Handler(http.server.BaseHTTPRequestHandler):
            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                request = urllib.request.Request(target + self.path, data=body, method=self.command)
                for name in ("Content-Type", "Authorization"):
                    if self.headers.get(name):
                        request.add_header(name, self.headers[name])
                try:
                    response = urllib.request.urlopen(request, timeout=10)
                except urllib.error.HTTPError as error:
                    response = error
                payload = response.read()
                self.send_response(response.status)
                for name in ("Content-Type", "Content-Security-Policy"):
                    if response.headers.get(name):
                        self.send_header(name, response.headers[name])
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = forward
            do_POST = forward

            def log_message(self, *_):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


def test_a_second_origin_is_refused_by_the_relying_party(server, open_browser):
    proxy = Proxy(server.url)
    try:
        browser = open_browser()
        driver = browser.driver
        driver.get(f"http://localhost:{proxy.port}/passkeys")
        add_authenticator(driver)
        assert driver.find_element(By.ID, "wrong-origin").is_displayed()
        driver.find_element(By.ID, "user-name").send_keys(f"second-origin-{uuid.uuid4().hex[:8]}")
        press(driver, "sign-up")
        shown = status_says(driver, "origin")
        browser.screenshot("second-origin")
        assert "created" not in shown
        # The browser made the credential (its origin was fine for the RP ID); the RP refused it.
        assert len(driver.get_credentials()) == 1
    finally:
        proxy.close()
