#!/usr/bin/env python3
"""The SDK's OAuth side (OAuthTokenManager, through `haapi token`) against glewlwyd 2.7.5, an OAuth server
we did not write: code exchange with DPoP and its nonce, DPoP-bound refresh (another key is refused),
revocation, and private_key_jwt / client_secret_jwt client authentication.

Glewlwyd issues the codes: an admin session approves the authorization request, as a logged-in user would.
Usage: glewlwyd_sdk.py --haapi PATH --work DIR. Prints PASS/FAIL per check and 'N passed, N failed'."""
import argparse
import base64
import hashlib
import json
import os
import subprocess
import time
import urllib.parse

from joserfc.jwk import ECKey, RSAKey

from glewlwyd_http import API, OIDC, REDIRECT, admin_session, check, finish, http

TOKEN = f"{OIDC}/token"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def thumbprint(public_jwk):
    members = {name: public_jwk[name] for name in ("crv", "kty", "x", "y")}
    return b64url(hashlib.sha256(json.dumps(members, separators=(",", ":"), sort_keys=True).encode()).digest())


def write_private(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)


def haapi(*arguments):
    run = subprocess.run([HAAPI, *arguments], capture_output=True, text=True, timeout=60)
    try:
        output = json.loads(run.stdout) if run.stdout.strip() else {}
    except ValueError:
        output = {"unparsed": run.stdout}
    return run.returncode, output, run.stderr.strip()


def claims(token):
    return json.loads(base64.urlsafe_b64decode(token.split(".")[1] + "=="))


parser = argparse.ArgumentParser()
parser.add_argument("--haapi", required=True)
parser.add_argument("--work", required=True)
options = parser.parse_args()
HAAPI, WORK = options.haapi, options.work

# An admin session, and an OIDC plugin with DPoP (nonce mandatory), registration, revocation and client assertions.
admin = admin_session()
plugin = {"module": "oidc", "name": "oidc", "display_name": "oidc", "parameters": {
    "iss": OIDC, "jwt-type": "sha", "jwt-key-size": "256", "key": "swift-haapi-interop-signing-key-0123456789",
    "access-token-duration": 3600, "refresh-token-duration": 1209600, "code-duration": 600, "refresh-token-rolling": True,
    "allow-non-oidc": True, "auth-type-code-enabled": True, "auth-type-token-enabled": False, "auth-type-id-token-enabled": True,
    "auth-type-device-enabled": False, "auth-type-client-enabled": True, "auth-type-refresh-enabled": True, "auth-type-password-enabled": False,
    "oauth-dpop-allowed": True, "oauth-dpop-iat-duration": 60, "oauth-dpop-iat-gap-duration": 5,
    "oauth-dpop-nonce-mandatory": True, "oauth-dpop-nonce-counter": 5,
    "introspection-revocation-allowed": True, "introspection-revocation-allow-target-client": True,
    "pkce-allowed": True, "register-client-allowed": True, "register-client-management-allowed": True,
    "register-client-credentials-scope": ["g_profile"],
    "request-parameter-allow": True, "client-jwks-parameter": "jwks", "client-secret-parameter": "client_secret",
}}
status, _, _ = http("POST", f"{API}/mod/plugin/", plugin, admin)
check("glewlwyd OIDC plugin with mandatory DPoP nonces", status == 200)


def register(name, method, extra=None):
    body = {"client_name": name, "redirect_uris": [REDIRECT], "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"], "token_endpoint_auth_method": method, **(extra or {})}
    status, _, registered = http("POST", f"{OIDC}/register", body)
    if status != 200:
        raise SystemExit(f"registration of {name} failed: {status} {registered}")
    http("PUT", f"{API}/auth/grant/{registered['client_id']}", {"scope": "g_profile"}, admin)
    return registered


def authorization_code(client_id, jkt, verifier):
    query = urllib.parse.urlencode({
        "response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT, "scope": "g_profile", "state": "s",
        "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256",
        "dpop_jkt": jkt, "g_continue": ""})
    for _ in range(2):  # the first request after a grant change may show the consent page
        status, headers, _ = http("GET", f"{OIDC}/auth?{query}", headers=admin)
        code = urllib.parse.parse_qs(urllib.parse.urlparse(headers.get("Location", "")).query).get("code", [None])[0]
        if code:
            return code
    raise SystemExit(f"glewlwyd issued no code (status {status})")


key = ECKey.generate_key("P-256")
key_file = os.path.join(WORK, "dpop.jwk")
write_private(key_file, json.dumps(key.as_dict(private=True)))
jkt = thumbprint(key.as_dict(private=False))
other_key_file = os.path.join(WORK, "other.jwk")
write_private(other_key_file, json.dumps(ECKey.generate_key("P-256").as_dict(private=True)))
verifier = b64url(os.urandom(32))

# 1. Code exchange with DPoP: glewlwyd demands a nonce, so this also covers the use_dpop_nonce retry.
secret_client = register("swift-haapi-secret", "client_secret_basic")
auth = ["--token-endpoint", TOKEN, "--client-id", secret_client["client_id"], "--client-secret", secret_client["client_secret"],
        "--redirect-uri", REDIRECT, "--show-tokens"]
code = authorization_code(secret_client["client_id"], jkt, verifier)
rc, tokens, err = haapi("token", "exchange", *auth, "--code", code, "--code-verifier", verifier, "--dpop-key", key_file)
check("haapi token exchange: code + PKCE + DPoP (after the nonce retry) → DPoP token", rc == 0 and tokens.get("token_type") == "DPoP", f"{rc} {tokens} {err}")
access_token = tokens.get("access_token", "x.e30.x")
check("the access token's cnf.jkt is the SDK key's RFC 7638 thumbprint", claims(access_token).get("cnf", {}).get("jkt") == jkt)
refresh_token = tokens.get("refresh_token", "")

# 2. DPoP-bound refresh: another key is refused, the same key works.
rc, refused, _ = haapi("token", "refresh", *auth, "--refresh-token", refresh_token, "--dpop-key", other_key_file)
# Refusals exit 77 ("refused by the server", haapi --help).
check("haapi token refresh with another DPoP key is refused", rc == 77 and refused.get("error") in ("invalid_dpop_proof", "invalid_grant", "use_dpop_nonce"), f"{rc} {refused}")
rc, refreshed, err = haapi("token", "refresh", *auth, "--refresh-token", refresh_token, "--dpop-key", key_file)
check("haapi token refresh with the flow's key → DPoP token", rc == 0 and refreshed.get("token_type") == "DPoP", f"{rc} {refreshed} {err}")
current_refresh = refreshed.get("refresh_token", refresh_token)

# 3. Revocation (RFC 7009), then the refresh token is dead.
rc, revoked, err = haapi("token", "revoke", *auth, "--revocation-endpoint", f"{OIDC}/revoke", "--token", current_refresh)
check("haapi token revoke", rc == 0 and revoked.get("revoked") is True, f"{rc} {revoked} {err}")
rc, after, _ = haapi("token", "refresh", *auth, "--refresh-token", current_refresh, "--dpop-key", key_file)
check("refresh after revocation is refused", rc == 77, f"{rc} {after}")

# 4. private_key_jwt (ES256 from a SEC1/PKCS#8 PEM, RS256 from PKCS#8) and client_secret_jwt (HS256).
for algorithm, client_key in (("ES256", ECKey.generate_key("P-256")), ("RS256", RSAKey.generate_key(2048))):
    public = dict(client_key.as_dict(private=False), kid=f"swift-haapi-{algorithm}", alg=algorithm, use="sig")
    client = register(f"swift-haapi-{algorithm}", "private_key_jwt", {"jwks": {"keys": [public]}})
    pem_file = os.path.join(WORK, f"client-{algorithm}.pem")
    write_private(pem_file, client_key.as_pem(private=True).decode())
    code = authorization_code(client["client_id"], jkt, verifier)
    rc, tokens, err = haapi("token", "exchange", "--token-endpoint", TOKEN, "--client-id", client["client_id"], "--client-key", pem_file,
                            "--client-key-alg", algorithm, "--client-key-id", f"swift-haapi-{algorithm}", "--redirect-uri", REDIRECT, "--code", code, "--code-verifier", verifier,
                            "--dpop-key", key_file)
    check(f"private_key_jwt {algorithm} from PEM: code exchange accepted", rc == 0 and tokens.get("token_type") == "DPoP", f"{rc} {tokens} {err}")

client = register("swift-haapi-hs256", "client_secret_jwt")
code = authorization_code(client["client_id"], jkt, verifier)
rc, tokens, err = haapi("token", "exchange", "--token-endpoint", TOKEN, "--client-id", client["client_id"], "--client-jwt-secret", client["client_secret"],
                        "--redirect-uri", REDIRECT, "--code", code, "--code-verifier", verifier, "--dpop-key", key_file)
check("client_secret_jwt HS256: code exchange accepted", rc == 0 and tokens.get("token_type") == "DPoP", f"{rc} {tokens} {err}")
rc, tokens, _ = haapi("token", "exchange", "--token-endpoint", TOKEN, "--client-id", client["client_id"], "--client-jwt-secret", "not-the-secret",
                      "--redirect-uri", REDIRECT, "--code", "unused", "--dpop-key", key_file)
check("client_secret_jwt with a wrong secret is refused", rc == 77, f"{rc} {tokens}")

finish()
