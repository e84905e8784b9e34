"""The sign-in page's defences in Chromium: forms posted from another origin, another site and a data:
URL are refused with a page that says so, count no attempt and issue no nonce; every page the server
shows carries a title and the protective headers."""

import base64
import http.server
import threading
import urllib.parse

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ARTIFACTS
from haapi_login import InteractiveLogin
from test_external_browser import assert_page_headers, wait_for_app_redirect


def forged_form(action, password):
    """A page of an attacker's: a form aimed at the victim's sign-in page (it cannot know the csrf field)."""
    return f"""<!doctype html><title>Win a prize</title>
<form method="post" action="{action}">
<input type="hidden" name="userName" value="demouser">
<input type="hidden" name="password" value="{password}">
<input type="hidden" name="redirect_uri" value="app://haapi">
<input type="hidden" name="csrf" value="guessed">
<button id="go" type="submit">Claim</button></form>"""


class AttackerSite:
    """Serves whatever page is set, on 127.0.0.1 (another site than localhost) at its own port."""

    def __init__(self):
        site = self
        self.page = ""

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = site.page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


@pytest.fixture
def attacker():
    site = AttackerSite()
    yield site
    site.close()


def test_forged_posts_are_refused_and_change_nothing(server, open_browser, attacker):
    login = InteractiveLogin(server.url, log_path=ARTIFACTS / "haapi-login-forgeries.log")
    try:
        page_url = login.choose_browser()
        browser = open_browser()
        driver = browser.driver
        driver.get(page_url)  # the victim's browser has the page (and its cookie) open
        origins = {
            "another-site": f"http://127.0.0.1:{attacker.port}/",
            "another-origin-same-site": f"http://localhost:{attacker.port}/",
        }
        # Six wrong passwords would lock the account (five failures allowed), then the right one: none of
        # it may count, and the right password must not make the server hand out a resume nonce.
        for password in ["wrong-1", "wrong-2", "wrong-3", "Password1"]:
            for label, origin in origins.items():
                attacker.page = forged_form(page_url, password)
                driver.get(origin)
                driver.find_element(By.ID, "go").click()
                WebDriverWait(driver, 10).until(lambda d: "Sign-in refused" in d.title, f"{label} was not refused")
                assert "This sign-in was not accepted" in driver.page_source
                if password == "wrong-1":
                    browser.screenshot(f"refused-from-{label}")
            data_page = base64.b64encode(forged_form(page_url, password).encode()).decode()
            driver.get(f"data:text/html;base64,{data_page}")
            driver.find_element(By.ID, "go").click()
            WebDriverWait(driver, 10).until(lambda d: "Sign-in refused" in d.title, "the data: URL was not refused")
            if password == "wrong-1":
                browser.screenshot("refused-from-data-url")
        assert browser.navigations_to("app://") == [], "a forged post made the server redirect to the app"

        # The refusal page offers the way forward: back to the real page, where the person signs in.
        driver.find_element(By.LINK_TEXT, "Open the sign-in page").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.ID, "userName"))
        driver.find_element(By.ID, "userName").send_keys("demouser")
        driver.find_element(By.ID, "password").send_keys("Password1")
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        app_url = wait_for_app_redirect(browser)
        status, output = login.resume(app_url)
        assert status == 0 and "token_type: DPoP" in output, output

        refusals = [r for r in browser.document_responses() if r[1] == 403]
        assert len(refusals) >= 12, refusals
        for url, _, headers in refusals:
            assert_page_headers(url, headers)
    finally:
        login.stop()


def test_every_page_has_a_title_and_the_protective_headers(server, open_browser):
    login = InteractiveLogin(server.url, log_path=ARTIFACTS / "haapi-login-pages.log")
    try:
        page_url = login.choose_browser()
        browser = open_browser()
        driver = browser.driver
        visited = {}

        def visit(label, url=None, action=None):
            if url:
                driver.get(url)
            if action:
                before = driver.find_element(By.TAG_NAME, "html")
                action()
                WebDriverWait(driver, 10).until(expected_conditions.staleness_of(before), f"{label}: no new page")
            WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")
            assert driver.title.strip(), f"{label}: no title"
            visited[label] = driver.title
            browser.screenshot(label)

        visit("front-page", server.url + "/")
        visit("passkey-app", server.url + "/passkeys")
        visit("expired-link", server.url + "/authn/browser/no-such-link")
        visit("sign-in-page", page_url)

        def submit(user, password):
            def act():
                driver.find_element(By.ID, "userName").clear()
                driver.find_element(By.ID, "userName").send_keys(user)
                driver.find_element(By.ID, "password").send_keys(password)
                driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            return act

        visit("wrong-password", action=submit("demouser", "nope"))
        parts = urllib.parse.urlsplit(page_url)
        query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k != "redirect_uri"]
        query.append(("redirect_uri", "https://evil.example/cb"))
        visit("unregistered-redirect-form", parts._replace(query=urllib.parse.urlencode(query)).geturl())
        visit("unregistered-redirect", action=submit("demouser", "Password1"))
        assert "not registered" in driver.page_source

        documents = browser.document_responses()
        assert len(documents) >= 7, documents
        for url, _, headers in documents:
            assert_page_headers(url, headers)
        assert browser.navigations_to("https://evil.example") == []
    finally:
        login.stop()
