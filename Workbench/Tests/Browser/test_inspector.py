"""The inspector (`/inspector`) in a real browser: a login made by the real CLI appears as one flow, its
sequence diagram's arrows lead to each request decoded, a refused request shows its rule and fix, the list
updates itself while requests come in, it works without JavaScript, and the pages log no console error."""

import http.server
import json
import subprocess
import threading
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import HAAPI_BIN


def login(server):
    """`haapi login` with the demo user's password on its command line: the unattended login the demo makes."""
    run = subprocess.run(
        [HAAPI_BIN, "login", "--server", server.url, "--client-id", "haapi-demo", "--username", "demouser",
         "--password", "Password1"],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run


def refused_token_request(server, grant):
    request = urllib.request.Request(
        server.url + "/oauth/token", data=f"grant_type={grant}&client_id=haapi-demo".encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    raise AssertionError("the request was accepted")


def severe_console_entries(browser):
    browser.collect()
    return [entry for entry in browser.console if entry.get("level") == "SEVERE"]


def newest_flow_link(driver):
    links = driver.find_elements(By.CSS_SELECTOR, "table.inspector a[href^='/inspector/flows/']")
    assert links, driver.page_source
    return links[0]


def test_a_login_is_one_flow_whose_arrows_open_each_request(server, open_browser):
    login(server)
    browser = open_browser()
    driver = browser.driver
    driver.get(server.url + "/inspector")
    browser.screenshot("inspector")
    assert driver.title == "Inspector"
    newest_flow_link(driver).click()
    WebDriverWait(driver, 10).until(lambda d: "/inspector/flows/" in d.current_url)
    browser.screenshot("flow")
    sections = driver.find_elements(By.CSS_SELECTOR, "section.exchange")
    headings = [section.find_element(By.TAG_NAME, "h2").text for section in sections]
    assert len(sections) == 9, headings
    assert headings[0].startswith("GET /oauth/token/cat"), headings
    assert headings[-1].startswith("POST /oauth/token (authorization_code)"), headings
    arrows = driver.find_elements(By.CSS_SELECTOR, "svg.sequence a")
    assert len(arrows) == len(sections)
    # Selecting an arrow goes to that request, decoded: the proof's claims, the masked password.
    password_post = next(a for a in arrows if "POST /authn/authenticate/password" in a.text)
    password_post.click()
    WebDriverWait(driver, 10).until(lambda d: "#r" in d.current_url)
    target = driver.find_element(By.CSS_SELECTOR, "section.exchange:target")
    assert "POST /authn/authenticate/password" in target.find_element(By.TAG_NAME, "h2").text
    assert "password = (9 chars)" in target.text
    assert "Password1" not in driver.page_source
    assert '"htm": "POST"' in target.text
    browser.screenshot("request")
    assert severe_console_entries(browser) == []


def test_a_refused_request_shows_its_rule_and_fix_and_the_list_updates_itself(server, open_browser):
    browser = open_browser()
    driver = browser.driver
    driver.get(server.url + "/inspector")
    before = driver.find_element(By.TAG_NAME, "main").get_attribute("data-version")
    status, body = refused_token_request(server, "refused-in-the-browser-test")
    assert status == 400 and body["error_description"].endswith("[oauth.grant-unsupported]")
    # The page's script reloads the content: the refusal appears without a reload, as a row of the refusals
    # table (time, request, status, rule, client).
    WebDriverWait(driver, 15).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "table.refusals tbody tr"))
    assert driver.find_element(By.TAG_NAME, "main").get_attribute("data-version") != before
    headings = [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, "table.refusals thead th")]
    assert headings == ["time", "request", "status", "rule", "client"], headings
    row = driver.find_element(By.CSS_SELECTOR, "table.refusals tbody tr")
    cells = [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
    assert cells[1].startswith("POST /oauth/token (refused-in-the-browser-test") and cells[2] == "400", cells
    assert cells[3] == "oauth.grant-unsupported" and cells[4] == "haapi-demo", cells
    refusal = row.find_element(By.TAG_NAME, "a")
    refusal.click()
    WebDriverWait(driver, 10).until(lambda d: "/inspector/requests/" in d.current_url)
    alert = driver.find_element(By.CSS_SELECTOR, ".refusal")
    assert "oauth.grant-unsupported" in alert.text and "Fix:" in alert.text
    assert alert.value_of_css_property("border-left-color") == "rgba(179, 38, 30, 1)"
    browser.screenshot("refusal")
    assert severe_console_entries(browser) == []


def test_the_inspector_works_without_javascript(server, open_browser):
    login(server)
    browser = open_browser(javascript=False)
    driver = browser.driver
    driver.get(server.url + "/inspector")
    newest_flow_link(driver).click()
    assert driver.find_elements(By.CSS_SELECTOR, "svg.sequence a")
    assert driver.find_elements(By.CSS_SELECTOR, "section.exchange")


def test_a_page_of_another_site_cannot_read_the_inspector(server, open_browser):
    """A page of another site on this machine (127.0.0.1 at another port: the same address space, so the
    browser lets it reach loopback) asks for the inspector: the server refuses it (Sec-Fetch-Site says
    cross-site) and prints that refusal's line."""
    page = b"<!doctype html><title>elsewhere</title><p>another site</p>"

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *arguments):
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        browser = open_browser()
        driver = browser.driver
        driver.get(f"http://127.0.0.1:{other.server_address[1]}/")
        driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0], {mode: 'no-cors'}).then(r => done(r.type)).catch(e => done('error ' + e));",
            server.url + "/inspector")

        def refused_line(_):
            return next((line for line in server.output if "GET /inspector 403" in line), None)

        line = WebDriverWait(driver, 10).until(refused_line)
        assert "[server.local-only]" in line and "cross-site" in line, line
    finally:
        other.shutdown()


def test_a_long_flow_opens_with_its_first_refusal_in_view_and_its_diagram_across_the_page(server, open_browser):
    """A flow whose refusal comes after many requests: the diagram takes the page's width, and the page opens
    with the first refused arrow in view (named above the diagram too, for a reader without scripts)."""
    run = subprocess.run(
        [HAAPI_BIN, "login", "--server", server.url, "--client-id", "haapi-demo", "--username", "demouser",
         "--password", "Password1", "--redirect-uri", "app://not-registered"],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 77, run.stderr
    browser = open_browser(width=1280, height=500)
    driver = browser.driver
    driver.get(server.url + "/inspector")
    newest_flow_link(driver).click()
    WebDriverWait(driver, 10).until(lambda d: "/inspector/flows/" in d.current_url)
    assert "First refusal:" in driver.find_element(By.CSS_SELECTOR, "p.refusal").text
    svg = driver.find_element(By.CSS_SELECTOR, "svg.sequence")
    main = driver.find_element(By.TAG_NAME, "main")
    assert svg.size["width"] >= main.size["width"] * 0.9, (svg.size, main.size)
    in_view = driver.execute_script(
        "const a = document.querySelector('svg.sequence a.refused'); const r = a.getBoundingClientRect();"
        "return r.top >= 0 && r.bottom <= window.innerHeight;")
    browser.screenshot("first-refusal")
    assert in_view
