"""The JSON-over-HTTP helper both glewlwyd scripts use (scripts/interop/glewlwyd_sdk.py and
scripts/bench/glewlwyd_client.py). Standard library only. Redirects are not followed: glewlwyd's
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
