"""`haapi login` run as a person would, in a pseudo-terminal: the real CLI is the app in these tests."""

import os
import re

import pexpect

from conftest import HAAPI_BIN


class InteractiveLogin:
    def __init__(self, server_url, log_path=None):
        self.child = pexpect.spawn(
            HAAPI_BIN, ["login", "--server", server_url, "--client-id", "haapi-demo"],
            env={**os.environ, "NO_COLOR": "1", "TERM": "dumb"}, encoding="utf-8", timeout=60,
            dimensions=(50, 200))
        if log_path:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            self.child.logfile_read = open(log_path, "w")

    def choose_browser(self):
        """Picks "Sign in with the browser" from the menu and returns the page's address it prints."""
        self.child.expect(r"Choose 1")
        menu = self.child.before
        number = re.search(r"(\d+)\) Sign in with the browser", menu)
        assert number, f"no browser authenticator in the menu:\n{menu}"
        self.child.sendline(number.group(1))
        self.child.expect(r"Open this address in a browser and sign in:\s+(\S+)")
        url = self.child.match.group(1)
        self.child.expect("Paste the address the browser was sent to")
        return url

    def resume(self, app_url):
        """Gives the app's URI back, as the OS would hand it to the app, and waits for the tokens."""
        self.child.sendline(app_url)
        self.child.expect(r"access_token", timeout=60)
        shown = self.child.before + self.child.after
        self.child.expect(pexpect.EOF, timeout=60)
        shown += self.child.before
        self.child.close()
        return self.child.exitstatus, shown

    def stop(self):
        if self.child.isalive():
            self.child.terminate(force=True)
