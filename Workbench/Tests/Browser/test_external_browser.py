"""The HAAPI external-browser authenticator end to end in Chromium: `haapi login` (the app) prints the
sign-in page's address, Chromium signs in on the real page (a wrong password first), the page sends the
browser to the app's URI (seen in the DevTools network events: headless Chromium has no app for it), and
the app resumes the flow to tokens."""

import re

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ARTIFACTS
from haapi_login import InteractiveLogin

PAGE_HEADERS = {
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
}


def assert_page_headers(url, headers):
    for name, value in PAGE_HEADERS.items():
        assert headers.get(name) == value, f"{url}: {name} is {headers.get(name)!r}"
    policy = headers.get("content-security-policy", "")
    assert "frame-ancestors 'none'" in policy, f"{url}: CSP {policy!r}"


def wait_for_app_redirect(browser, timeout=10):
    found = []

    def arrived(_):
        found[:] = browser.navigations_to("app://haapi?_resume_nonce=")
        return bool(found)

    WebDriverWait(browser.driver, timeout).until(arrived, "the browser never went to app://haapi")
    return found[0]


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript-on", "javascript-off"])
def test_external_browser_login_returns_to_the_app(server, open_browser, javascript):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    label = "on" if javascript else "off"
    login = InteractiveLogin(server.url, log_path=ARTIFACTS / f"haapi-login-js-{label}.log")
    try:
        page_url = login.choose_browser()
        browser = open_browser(javascript=javascript)
        driver = browser.driver
        if not javascript:
            # The passkey app's <noscript> shows only when scripts really are off.
            driver.get(server.url + "/passkeys")
            assert driver.find_element(By.CSS_SELECTOR, "noscript p.error").is_displayed()

        driver.get(page_url)
        browser.screenshot("sign-in-page")
        assert driver.title.startswith("Sign in")
        heading = driver.find_element(By.TAG_NAME, "h1").text
        assert heading == "Sign in to the swift-haapi demo app"
        user = driver.find_element(By.ID, "userName")
        password = driver.find_element(By.ID, "password")
        assert user.get_attribute("required") is not None and password.get_attribute("required") is not None

        user.send_keys("demouser")
        password.send_keys("not-the-password")
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        alert = WebDriverWait(driver, 10).until(
            expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
        browser.screenshot("wrong-password")
        assert "Incorrect username or password" in alert.text
        assert driver.find_element(By.ID, "userName").get_attribute("value") == "demouser"

        driver.find_element(By.ID, "password").send_keys("Password1")
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        app_url = wait_for_app_redirect(browser)
        browser.screenshot("after-sign-in")
        assert re.fullmatch(r"app://haapi\?_resume_nonce=[A-Za-z0-9_-]+", app_url), app_url
        blocked = [e["message"] for e in browser.console if "Content Security Policy" in e.get("message", "")]
        assert not blocked, f"CSP blocked something: {blocked}"

        for url, _, headers in browser.document_responses():
            if "/authn/browser/" in url:
                assert_page_headers(url, headers)

        status, output = login.resume(app_url)
        assert status == 0, output
        assert "token_type: DPoP" in output and "refresh_token:" in output, output
    finally:
        login.stop()
