"""The JSON-over-HTTP helper the glewlwyd scripts use (scripts/interop/glewlwyd_sdk.py, glewlwyd_check.py and
scripts/bench/glewlwyd_client.py), and the interop scripts' PASS/FAIL lines. Standard library only. Redirects are not followed: glewlwyd's
authorization endpoint answers with the code in a 302, and the caller reads it from Location."""
import json
import urllib.error
import urllib.request


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


opener = urllib.request.build_opener(NoRedirects)


def http(method, url, body=None, headers=None):
    """Sends `body` as JSON; returns (status, headers, parsed JSON or None)."""
    headers = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        response = opener.open(request)
        status, response_headers, raw = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, response_headers, raw = error.code, error.headers, error.read()
    try:
        parsed = json.loads(raw) if raw.strip() else None
    except ValueError:
        parsed = None
    return status, response_headers, parsed


API = "http://localhost:4593/api"
OIDC = f"{API}/oidc"
REDIRECT = "https://client.example/cb"
results = []


def check(name, ok, detail=""):
    """One expectation: a PASS or FAIL line, the detail only on failure."""
    results.append(bool(ok))
    print(("PASS " if ok else "FAIL ") + name + (f"  [{detail}]" if detail and not ok else ""))


def finish():
    """The summary line, and the exit status: 1 when anything failed."""
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    raise SystemExit(0 if all(results) else 1)


def admin_session():
    """The Cookie header of glewlwyd's admin session."""
    status, headers, _ = http("POST", f"{API}/auth/", {"username": "admin", "password": "password"})
    check("glewlwyd admin session", status == 200)
    return {"Cookie": (headers.get("Set-Cookie") or "").split(";")[0]}
