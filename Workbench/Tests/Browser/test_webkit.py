"""The same pages in WebKit, Safari's engine (Debian's WebKitGTK MiniBrowser driven by WebKitWebDriver, on an
Xvfb display), as far as WebKitGTK's WebDriver allows: the sign-in page and the return to the app, forged
posts refused, the passkey page, and the inspector. What it cannot drive (virtual authenticators, console and
network logs, JavaScript switched off) is listed in docs/SECURITY.md and tested in Chromium only."""

import base64
import re

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from conftest import ARTIFACTS
from haapi_login import InteractiveLogin
from test_inspector import login as cli_login, refused_token_request
from test_sign_in_page_defences import AttackerSite, forged_form


def wait_for_app(driver, timeout=10):
    """WebKit cannot open the app's URI; it stays there, and reports it as where it is."""
    WebDriverWait(driver, timeout).until(lambda d: d.current_url.startswith("app://haapi?"), "never went to the app")
    return driver.current_url


def test_sign_in_page_and_the_return_to_the_app(server, open_browser):
    login = InteractiveLogin(server.url, log_path=ARTIFACTS / "haapi-login-webkit.log")
    try:
        page_url = login.choose_browser()
        browser = open_browser(engine="webkit")
        driver = browser.driver
        driver.get(page_url)
        browser.screenshot("sign-in-page")
        assert driver.title.startswith("Sign in")
        driver.find_element(By.ID, "userName").send_keys("demouser")
        driver.find_element(By.ID, "password").send_keys("not-the-password")
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        alert = WebDriverWait(driver, 10).until(
            expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "[role=alert]")))
        assert "Incorrect username or password" in alert.text
        browser.screenshot("wrong-password")
        driver.find_element(By.ID, "password").send_keys("Password1")
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        app_url = wait_for_app(driver)
        assert re.fullmatch(r"app://haapi\?_resume_nonce=[A-Za-z0-9_-]+", app_url), app_url
        status, output = login.resume(app_url)
        assert status == 0 and "token_type: DPoP" in output, output
    finally:
        login.stop()


def test_forged_posts_are_refused(server, open_browser):
    attacker = AttackerSite()
    login = InteractiveLogin(server.url, log_path=ARTIFACTS / "haapi-login-webkit-forgeries.log")
    try:
        page_url = login.choose_browser()
        browser = open_browser(engine="webkit")
        driver = browser.driver
        driver.get(page_url)
        for label, origin in {
            "another-site": f"http://127.0.0.1:{attacker.port}/",
            "another-origin-same-site": f"http://localhost:{attacker.port}/",
        }.items():
            attacker.page = forged_form(page_url, "Password1")
            driver.get(origin)
            driver.find_element(By.ID, "go").click()
            WebDriverWait(driver, 10).until(lambda d: "Sign-in refused" in d.title, f"{label} was not refused")
            assert "This sign-in was not accepted" in driver.page_source
            browser.screenshot(f"refused-from-{label}")
        data_page = base64.b64encode(forged_form(page_url, "Password1").encode()).decode()
        driver.get(f"data:text/html;base64,{data_page}")
        driver.find_element(By.ID, "go").click()
        WebDriverWait(driver, 10).until(lambda d: "Sign-in refused" in d.title, "the data: URL was not refused")
        assert not driver.current_url.startswith("app://")
        # The real page still signs in: the forgeries counted nothing.
        driver.find_element(By.LINK_TEXT, "Open the sign-in page").click()
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.ID, "userName"))
        driver.find_element(By.ID, "userName").send_keys("demouser")
        driver.find_element(By.ID, "password").send_keys("Password1")
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        status, output = login.resume(wait_for_app(driver))
        assert status == 0, output
    finally:
        login.stop()
        attacker.close()


def test_passkey_page_loads_its_script(server, open_browser):
    browser = open_browser(engine="webkit")
    driver = browser.driver
    driver.get(server.url + "/passkeys")
    browser.screenshot("passkeys")
    assert driver.title.strip()
    # The page's own script ran (CSP allows it): it found WebAuthn, or said plainly that it is missing.
    supported = driver.execute_script("return !!window.PublicKeyCredential")
    buttons = driver.find_elements(By.CSS_SELECTOR, "form button")
    assert buttons
    if supported:
        assert all(button.is_enabled() for button in buttons)
    else:
        assert "does not support passkeys" in driver.find_element(By.ID, "status").text


def test_inspector(server, open_browser):
    cli_login(server)
    browser = open_browser(engine="webkit")
    driver = browser.driver
    driver.get(server.url + "/inspector")
    assert driver.title == "Inspector"
    driver.find_element(By.CSS_SELECTOR, "table.inspector a[href^='/inspector/flows/']").click()
    WebDriverWait(driver, 10).until(lambda d: "/inspector/flows/" in d.current_url)
    sections = driver.find_elements(By.CSS_SELECTOR, "section.exchange")
    assert len(sections) == 9
    arrows = driver.find_elements(By.CSS_SELECTOR, "svg.sequence a")
    assert len(arrows) == 9
    target = driver.execute_script("return arguments[0].getAttribute('href')", arrows[6]).lstrip("#")
    ActionChains(driver).move_to_element(arrows[6].find_element(By.TAG_NAME, "text")).click().perform()
    WebDriverWait(driver, 10).until(lambda d: d.current_url.endswith("#" + target))
    shown = driver.find_element(By.CSS_SELECTOR, "section.exchange:target")
    assert shown.get_attribute("id") == target
    browser.screenshot("flow")
    # The overview updates itself: a refusal appears without a reload.
    driver.get(server.url + "/inspector")
    status, _ = refused_token_request(server, "refused-in-webkit")
    assert status == 400
    WebDriverWait(driver, 15).until(
        lambda d: any("refused-in-webkit" in row.text for row in d.find_elements(By.CSS_SELECTOR, "table.refusals tr")))
