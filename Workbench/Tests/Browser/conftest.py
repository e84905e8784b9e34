"""Fixtures for the real-browser tests: a `haapi serve` process, headless Chromium driven by Selenium
(Debian's chromium and chromium-driver), WebKit (Safari's engine: Debian's WebKitGTK MiniBrowser and its
WebKitWebDriver, on an Xvfb display), and the artifacts each test leaves behind (a screenshot of each
page; on failure the page's HTML and, in Chromium, the browser's console log).

scripts/browser.sh installs what these need and runs them; HAAPI_BIN names the haapi binary and
BROWSER_ARTIFACTS the output folder."""

import glob
import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HAAPI_BIN = os.environ.get("HAAPI_BIN", "")
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS", ".build/browser-artifacts"))
CHROMIUM = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")
WEBKIT_DRIVER = os.environ.get("WEBKIT_DRIVER_BIN", "/usr/bin/WebKitWebDriver")
MINIBROWSER = os.environ.get(
    "WEBKIT_BROWSER_BIN", next(iter(sorted(glob.glob("/usr/lib/*/webkit2gtk-4.*/MiniBrowser"))), ""))

_display = {}


def ensure_display():
    """WebKitGTK needs an X display even for automation: start one Xvfb for the session when none is set."""
    if os.environ.get("DISPLAY"):
        return
    read, write = os.pipe()
    process = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                               pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        process.kill()
        raise RuntimeError("Xvfb did not start (scripts/browser.sh installs xvfb)")
    _display["process"] = process
    os.environ["DISPLAY"] = ":" + number


class Server:
    """A `haapi serve` child process; `url` is the issuer it printed (http://localhost:PORT by default)."""

    def __init__(self, *arguments):
        if not HAAPI_BIN or not os.access(HAAPI_BIN, os.X_OK):
            raise RuntimeError("HAAPI_BIN must name the haapi binary (scripts/browser.sh sets it)")
        self.process = subprocess.Popen(
            [HAAPI_BIN, "serve", "--port", "0", *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.output = []
        self.url = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.output.append(line)
            found = re.search(r"dev server on (http://\S+)", line)
            if found:
                self.url = found.group(1)
                break
        if not self.url:
            self.stop()
            raise RuntimeError("haapi serve did not start:\n" + "".join(self.output))
        # Keep reading so the pipe never fills.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.process.stdout:
            self.output.append(line)

    @property
    def port(self):
        return int(self.url.rsplit(":", 1)[1])

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture(scope="session")
def server():
    running = Server()
    yield running
    running.stop()


class Browser:
    """A headless Chromium with the DevTools performance log kept, so navigations to an app's URI (which
    headless Chromium cannot open) and every response's headers can be read."""

    def __init__(self, name, javascript=True, width=390, height=844, engine="chromium"):
        self.engine = engine
        self.name = name
        self.events = []
        self.console = []
        self.shots = 0
        if engine == "webkit":
            # WebKitGTK's WebDriver has no console or network log, and no switch for JavaScript.
            assert javascript, "WebKit runs with JavaScript on"
            ensure_display()
            options = webdriver.WebKitGTKOptions()
            options.binary_location = MINIBROWSER
            options.add_argument("--automation")
            from selenium.webdriver.webkitgtk.service import Service as WebKitService
            self.driver = webdriver.WebKitGTK(options=options, service=WebKitService(executable_path=WEBKIT_DRIVER))
            self.driver.set_window_size(width, height)
            self.driver.set_page_load_timeout(20)
            return
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--window-size={width},{height}", "--no-first-run"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        if not javascript:
            options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(20)

    def collect(self):
        """Moves the logs Chromium has buffered into `events` and `console` (reading them empties them)."""
        if self.engine == "webkit":
            return
        for entry in self.driver.get_log("performance"):
            self.events.append(json.loads(entry["message"])["message"])
        self.console.extend(self.driver.get_log("browser"))

    def navigations_to(self, prefix):
        """URLs starting with `prefix` that the browser was sent to (requests, redirects, navigations). WebKit,
        which keeps no network log, reports the address it is at when it cannot open it (an app's URI)."""
        if self.engine == "webkit":
            current = self.driver.current_url
            return [current] if current.startswith(prefix) else []
        self.collect()
        found = []
        for event in self.events:
            text = json.dumps(event)
            found += [url for url in re.findall(r'"(%s[^"]*)"' % re.escape(prefix), text)]
        return list(dict.fromkeys(found))

    def document_responses(self):
        """(url, status, headers with lower-case names) of every document the browser received from a server.
        Chromium's own start page (`data:,`, reported as a document when a new window opens late) is not one."""
        self.collect()
        documents = []
        for event in self.events:
            if event.get("method") == "Network.responseReceived" and event["params"].get("type") == "Document":
                response = event["params"]["response"]
                if not response["url"].startswith(("http://", "https://")):
                    continue
                headers = {name.lower(): value for name, value in response.get("headers", {}).items()}
                documents.append((response["url"], response["status"], headers))
        return documents

    def screenshot(self, label):
        self.shots += 1
        folder = ARTIFACTS / self.name
        folder.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(folder / f"{self.shots:02d}-{label}.png"))

    def save_failure(self):
        folder = ARTIFACTS / self.name
        folder.mkdir(parents=True, exist_ok=True)
        try:
            (folder / "failure.html").write_text(self.driver.page_source)
            self.driver.save_screenshot(str(folder / "failure.png"))
            self.collect()
        except Exception as error:  # the browser may be what failed
            (folder / "failure-note.txt").write_text(f"could not save the page: {error}\n")
        (folder / "console.log").write_text(
            "\n".join(f"{entry.get('level')} {entry.get('message')}" for entry in self.console) + "\n")

    def quit(self):
        self.driver.quit()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for browser in getattr(item, "browsers", []):
            browser.save_failure()


@pytest.fixture
def open_browser(request):
    """Opens browsers for a test; each is closed after it, and saves its page and console if it failed."""
    request.node.browsers = []

    def make(javascript=True, engine="chromium", width=390, height=844):
        label = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
        suffix = "" if not request.node.browsers else f"-{len(request.node.browsers) + 1}"
        browser = Browser(label + suffix, javascript=javascript, engine=engine, width=width, height=height)
        request.node.browsers.append(browser)
        return browser

    yield make
    for browser in request.node.browsers:
        browser.quit()


@pytest.fixture(scope="session", autouse=True)
def stop_display():
    yield
    if "process" in _display:
        _display["process"].terminate()
