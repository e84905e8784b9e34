#!/usr/bin/env python3
"""`haapi check` against a second server we did not write (issue 43): IdentityPython's idpyoidc 5 with its DPoP
add-on, behind scripts/interop/idpyoidc_server.py.

The script first learns what that server really does, by requests of its own: DPoP proofs made here with the
`cryptography` package (no code shared with haapi), one per attack the check makes, each sent with the client's
correct credentials. Then it runs `haapi check --json` and asserts the report says the same thing, finding by
finding: an attack the server accepted is an error, one refused naming DPoP a pass, one refused for another reason
information, nothing else red, and a wrong client secret reported as such with no DPoP verdict at all.

Usage: idpyoidc_check.py --haapi PATH --work DIR (run with the venv that has idpyoidc, see scripts/interop.sh)."""
import argparse
import base64
import hashlib
import hmac
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

from glewlwyd_http import check, finish

parser = argparse.ArgumentParser()
parser.add_argument("--haapi", required=True)
parser.add_argument("--work", required=True)
options = parser.parse_args()
os.makedirs(options.work, exist_ok=True)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def secret_file(name, value):
    path = os.path.join(options.work, name)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(value)
    return path


client_id, client_secret = "swift-haapi-check", secrets.token_urlsafe(24)
secret_path = secret_file("client-secret", client_secret)
wrong_secret_path = secret_file("wrong-secret", "not-" + client_secret)


def start_server(*extra):
    """idpyoidc behind the wrapper on a free loopback port: (process, issuer, log file)."""
    port = free_port()
    log = open(os.path.join(options.work, f"idpyoidc-{port}.log"), "w")
    process = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "idpyoidc_server.py"),
                                "--port", str(port), "--client-id", client_id, "--client-secret-file", secret_path,
                                *extra], stdout=log, stderr=subprocess.STDOUT)
    return process, f"http://127.0.0.1:{port}", log


def stop_server(process, log):
    process.terminate()
    process.wait(timeout=10)
    log.close()


server, issuer, log = start_server()
token_url = f"{issuer}/token"


def request(method, url, form=None, headers=None):
    """(status, parsed JSON body or None); nothing raised for an HTTP error status."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    outgoing = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(outgoing, timeout=10) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


def wait_for_server(process, base):
    for _ in range(100):  # 20 s at most: idpyoidc makes its RSA key at start
        try:
            status, _ = request("GET", f"{base}/.well-known/oauth-authorization-server")
            if status == 200:
                return True
        except OSError:
            pass
        if process.poll() is not None:
            return False
        time.sleep(0.2)
    return False


# Proofs made here. ES256 over P-256, the signature as R || S (RFC 7518 §3.4).
key, other_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())


def public_jwk(private_key):
    numbers = private_key.public_key().public_numbers()
    return {"kty": "EC", "crv": "P-256", "x": b64(numbers.x.to_bytes(32, "big")),
            "y": b64(numbers.y.to_bytes(32, "big"))}


def private_jwk(private_key):
    return dict(public_jwk(private_key), d=b64(private_key.private_numbers().private_value.to_bytes(32, "big")))


def claims(htm="POST", htu=None, age=0):
    return {"jti": secrets.token_urlsafe(16), "htm": htm, "htu": htu or token_url, "iat": int(time.time()) - age}


def es256(signing_input, signer):
    r, s = decode_dss_signature(signer.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def proof(body, header=None, signer=key):
    header = header or {"typ": "dpop+jwt", "alg": "ES256", "jwk": public_jwk(key)}
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(body).encode())}".encode()
    if header["alg"] == "none":
        signature = b""
    elif header["alg"] == "HS256":
        signature = hmac.new(base64.urlsafe_b64decode(header["jwk"]["k"] + "=="), signing_input, hashlib.sha256).digest()
    else:
        signature = es256(signing_input, signer)
    return f"{signing_input.decode()}.{b64(signature)}"


def basic(secret):
    credentials = f"{urllib.parse.quote(client_id)}:{urllib.parse.quote(secret)}"
    return "Basic " + base64.b64encode(credentials.encode()).decode()


def token_request(dpop, secret=client_secret):
    return request("POST", token_url, {"grant_type": "client_credentials", "scope": "read"},
                   {"Authorization": basic(secret), "DPoP": dpop})


def verdict(status, body):
    """What the answer shows, in the words of issue 43: the check must say the same."""
    if 200 <= status < 300:
        return "accepted"
    if not 400 <= status < 500:
        return "inconclusive"
    body = body or {}
    named = f"{body.get('error', '')} {body.get('error_description', '')}".lower()
    return "refused" if "dpop" in named else "refused otherwise"


severity_of = {"accepted": "error", "refused": "pass", "refused otherwise": "info", "inconclusive": "warning"}


def jwt_claims(token):
    try:
        return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))
    except (IndexError, ValueError):
        return None


def run_check(secret_path_used, base=None, table_too=True):
    """`haapi check` as a table (printed) and as JSON (judged); `table_too` False: the JSON run only."""
    arguments = [options.haapi, "check", "--server", base or issuer, "--client-id", client_id,
                 "--client-secret-file", secret_path_used, "--scope", "read"]
    table = subprocess.run(arguments, capture_output=True, text=True, timeout=120) if table_too else None
    run = subprocess.run(arguments + ["--json"], capture_output=True, text=True, timeout=120)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        report = {"findings": []}
    return table, run, report


def severities(report, prefix):
    found = {}
    for finding in report["findings"]:
        if finding["id"].startswith(prefix):
            found.setdefault(finding["id"], []).append(finding["severity"])
    return {rule: sorted(values) for rule, values in found.items()}


try:
    check("idpyoidc started behind the wrapper", wait_for_server(server, issuer), f"see {log.name}")
    version = subprocess.run([sys.executable, "-c", "import importlib.metadata as m; print(m.version('idpyoidc'))"],
                             capture_output=True, text=True).stdout.strip()
    print(f"idpyoidc {version} at {issuer}")

    # What the server does, by direct requests.
    _, metadata = request("GET", f"{issuer}/.well-known/oauth-authorization-server")
    fresh = proof(claims())
    status, tokens = token_request(fresh)
    check("direct: a correct proof with the client's credentials gets a token", status == 200, f"{status} {tokens}")
    tokens = tokens or {}
    access_token = tokens.get("access_token", "")
    payload = jwt_claims(access_token) or {}
    bound = str(tokens.get("token_type", "")).lower() == "dpop" and "jkt" in (payload.get("cnf") or {})
    print(f"direct: token_type {tokens.get('token_type')}, a JWT: {bool(jwt_claims(access_token))}, "
          f"cnf: {payload.get('cnf')}")

    hs256_key = secrets.token_bytes(32)
    attacks = [  # (rule id, what the check calls it, the proof)
        ("dpop.replay", "a replayed proof", lambda: fresh),
        ("dpop.htm-mismatch", "a proof for GET", lambda: proof(claims(htm="GET"))),
        ("dpop.htu-mismatch", "a proof for another URL", lambda: proof(claims(htu=f"{issuer}/elsewhere"))),
        ("dpop.iat-window", "a proof made ten minutes ago", lambda: proof(claims(age=600))),
        ("dpop.iat-window", "a proof dated ten minutes ahead", lambda: proof(claims(age=-600))),
        ("dpop.typ", "typ jwt", lambda: proof(claims(), {"typ": "jwt", "alg": "ES256", "jwk": public_jwk(key)})),
        ("dpop.alg", "alg none", lambda: proof(claims(), {"typ": "dpop+jwt", "alg": "none", "jwk": public_jwk(key)})),
        ("dpop.alg", "HS256", lambda: proof(claims(), {"typ": "dpop+jwt", "alg": "HS256",
                                                        "jwk": {"kty": "oct", "k": b64(hs256_key)}})),
        ("dpop.signature", "signed by another key than its jwk", lambda: proof(claims(), signer=other_key)),
        ("dpop.jwk", "jwk with the private key",
         lambda: proof(claims(), {"typ": "dpop+jwt", "alg": "ES256", "jwk": private_jwk(key)})),
    ]
    expected = {"dpop.fresh-accepted": ["pass"], "dpop.nonce-missing": ["warning"],
                "dpop.token-not-bound": ["pass" if bound else "error"]}
    for rule, what, make in attacks:
        status, body = token_request(make())
        seen = verdict(status, body)
        print(f"direct: {what}: {status} {json.dumps(body)[:100]} -> {seen}")
        expected.setdefault(rule, []).append(severity_of[seen])
    expected = {rule: sorted(values) for rule, values in expected.items()}
    status, _ = token_request(proof(claims()))
    check("direct: a correct proof is still accepted after the attacks (the check's control)", status == 200, status)

    # Introspection of the client's own live token, and the wrong secret.
    status, introspected = request("POST", f"{issuer}/introspection", {"token": access_token},
                                   {"Authorization": basic(client_secret)})
    shows_active = status == 200 and (introspected or {}).get("active") is True
    print(f"direct: introspection of the client's own live token: {status} {introspected}")
    status, refused = token_request(proof(claims()), secret="not-" + client_secret)
    check("direct: a wrong client secret is refused", status >= 400, status)
    print(f"direct: wrong client secret: {status} {refused}")

    # The check, with the right secret.
    table, run, report = run_check(secret_path)
    print(table.stdout)
    check("the report is one JSON object; exit 1 because of errors", run.returncode == 1 and report["findings"],
          f"{run.returncode} {run.stderr}")
    output = table.stdout + run.stdout
    check("no secret or token in the report", client_secret not in output and "eyJ" not in output)
    reported = severities(report, "dpop.")
    check("dpop: each verdict is what the direct requests showed (accepted = error, refused naming DPoP = pass, "
          "refused otherwise = info), and no other dpop finding", reported == expected,
          f"reported {reported}, expected {expected}")
    advertised = "dpop_signing_alg_values_supported" in (metadata or {})
    check("discovery: dpop_signing_alg_values_supported reported as the metadata has it",
          severities(report, "discovery.dpop-algs") == {"discovery.dpop-algs": ["pass" if advertised else "warning"]},
          severities(report, "discovery.dpop-algs"))
    revocation = severities(report, "oauth.revocation").get("oauth.revocation")
    check("hygiene: revocation inconclusive (a warning) when introspection never shows the live token active, "
          "judged otherwise when it does", revocation == ["warning"] if not shows_active else revocation in (
              ["pass"], ["error"]), f"{revocation}, active before: {shows_active}")
    errors = sorted({f["id"] for f in report["findings"] if f["severity"] == "error"})
    accepted = sorted({rule for rule, values in expected.items() if "error" in values})
    check("nothing invented: the errors are exactly the faults the direct requests showed", errors == accepted,
          f"errors {errors}, faults {accepted}")

    # The check, with a wrong secret: one finding about the client's credentials, no DPoP verdict.
    table, run, report = run_check(wrong_secret_path)
    ids = [(f["id"], f["severity"]) for f in report["findings"]]
    check("wrong secret: reported as the client's credentials (error), and no DPoP verdict",
          ("oauth.client-authentication", "error") in ids and not severities(report, "dpop."), ids)
    check("wrong secret: neither secret in the report", client_secret not in table.stdout + run.stdout)
finally:
    stop_server(server, log)

# The same server with its bug served as it is: every client-credentials request after the first fails (400,
# "'ClientSessionInfo' object is not subscriptable"). Those refusals say nothing about the proofs: the check's
# control request fails too, and no attack may be reported as refused (a pass) or accepted (an error).
buggy, base, buggy_log = start_server("--without-workaround")
try:
    check("idpyoidc without the workaround started", wait_for_server(buggy, base), f"see {buggy_log.name}")
    # One run only: the server's first client-credentials request succeeds, and the check's fresh proof must be it.
    _, run, report = run_check(secret_path, base, table_too=False)
    attacks_reported = {rule: values for rule, values in severities(report, "dpop.").items()
                        if rule not in ("dpop.fresh-accepted", "dpop.nonce-missing", "dpop.token-not-bound",
                                        "dpop.control-failed")}
    check("idpyoidc's own bug: the control request fails, so every attack is inconclusive (a warning), none passes",
          severities(report, "dpop.control-failed") == {"dpop.control-failed": ["warning"]}
          and attacks_reported and all(v == "warning" for values in attacks_reported.values() for v in values),
          attacks_reported)
finally:
    stop_server(buggy, buggy_log)
finish()
