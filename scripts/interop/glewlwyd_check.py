#!/usr/bin/env python3
"""`haapi check` against glewlwyd 2.7.5, an OAuth server we did not write (issue 33): the discovery, DPoP and
login-free hygiene checks run and report what glewlwyd really does; HAAPI is reported absent in one finding.

Runs after glewlwyd_sdk.py, which configured the OIDC plugin (DPoP with mandatory nonces, HMAC-signed tokens).
Usage: glewlwyd_check.py --haapi PATH --work DIR. Prints the report, PASS/FAIL per expectation and a summary."""
import argparse
import json
import os
import subprocess

from glewlwyd_http import API, OIDC, REDIRECT, admin_session, check, finish, http

parser = argparse.ArgumentParser()
parser.add_argument("--haapi", required=True)
parser.add_argument("--work", required=True)
options = parser.parse_args()

admin = admin_session()
# A confidential client allowed client_credentials (the DPoP group's grant) with a scope of its own.
status, _, registered = http("POST", f"{OIDC}/register", {
    "client_name": "swift-haapi-check", "redirect_uris": [REDIRECT], "response_types": ["code"],
    "grant_types": ["client_credentials", "authorization_code", "refresh_token"],
    "token_endpoint_auth_method": "client_secret_basic"})
check("client registered", status == 200, f"{status} {registered}")
client_id = registered.get("client_id", "")
status, _, record = http("GET", f"{API}/client/{client_id}", None, admin)
record = dict(record or {}, scope=["g_profile"])
record.pop("source", None)
status, _, _ = http("PUT", f"{API}/client/{client_id}", record, admin)
check("client given the g_profile scope", status == 200)
secret_file = os.path.join(options.work, "check-secret")
fd = os.open(secret_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
with os.fdopen(fd, "w") as handle:
    handle.write(registered.get("client_secret", ""))

arguments = [options.haapi, "check", "--server", OIDC, "--client-id", client_id, "--client-secret-file", secret_file,
             "--scope", "g_profile", "--redirect-uri", REDIRECT]
table = subprocess.run(arguments, capture_output=True, text=True, timeout=120)
print(table.stdout)
run = subprocess.run(arguments + ["--json"], capture_output=True, text=True, timeout=120)
try:
    report = json.loads(run.stdout)
except ValueError:
    report = {"findings": []}
# One id can have several findings (a rule tried two ways, such as alg none and HS256): their severities.
severities = {}
for finding in report["findings"]:
    severities.setdefault(finding["id"], []).append(finding["severity"])
passed = lambda i: bool(severities.get(i)) and all(s == "pass" for s in severities[i])
by_group = lambda group: [f["id"] for f in report["findings"] if f["group"] == group]

check("the report is one JSON object; exit 1 because of errors, or 0", run.returncode in (0, 1) and report["findings"],
      f"{run.returncode} {run.stderr}")
check("no secret or token in the report", registered.get("client_secret", "-") not in run.stdout + table.stdout
      and "eyJ" not in run.stdout + table.stdout)
check("discovery: the document is found, names this issuer, and every advertised endpoint is served",
      all(passed(i) for i in ("discovery.issuer-mismatch", "discovery.endpoints-served")))
# What glewlwyd does with HMAC-signed tokens: jwks_uri is advertised, and answers 403 (no public keys).
check("discovery: jwks_uri advertised but refused (glewlwyd with HMAC-signed tokens)",
      "discovery.jwks-unreachable" in severities)
check("dpop: a fresh proof after the use_dpop_nonce retry is accepted and the token bound",
      all(passed(i) for i in ("dpop.nonce-missing", "dpop.fresh-accepted", "dpop.token-not-bound")))
# The rule ids of the catalogue (Sources/HaapiServer/Diagnostics/RuleCatalogue.swift) the attacks test.
attacks = ["dpop.replay", "dpop.htm-mismatch", "dpop.htu-mismatch", "dpop.iat-window", "dpop.typ", "dpop.alg",
           "dpop.signature", "dpop.jwk", "dpop.nonce-unknown"]
check("dpop: every forged or replayed proof refused (alg: none and HS256 both; iat past and ahead)",
      all(passed(a) for a in attacks) and len(severities.get("dpop.alg", [])) == 2
      and len(severities.get("dpop.iat-window", [])) == 2,
      [a for a in attacks if not passed(a)])
check("haapi: reported absent, in one finding", by_group("haapi") == ["haapi.absent"], by_group("haapi"))
check("hygiene: introspection closed to anonymous callers; a revoked access token inactive",
      passed("oauth.introspection-open") and passed("oauth.revocation"), by_group("hygiene"))
red = sorted({f["id"] for f in report["findings"] if f["severity"] in ("error", "warning")})
check("nothing else red", red == ["discovery.jwks-unreachable"], red)

finish()
