#!/usr/bin/env python3
"""Prepares a running glewlwyd 2.7.5 (scripts/interop/glewlwyd-start.sh) for the token-endpoint benchmark:
an OIDC plugin that accepts DPoP without nonces (like our dev server's `haapi-dcr-main` client) and a
confidential client for client_credentials with client_secret_basic. Prints "CLIENT_ID CLIENT_SECRET".
Standard library only, so the benchmark needs no virtual environment."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
from glewlwyd_http import http  # noqa: E402

API = "http://localhost:4593/api"
OIDC = f"{API}/oidc"


status, headers, _ = http("POST", f"{API}/auth/", {"username": "admin", "password": "password"})
if status != 200:
    sys.exit(f"glewlwyd admin sign-in failed: {status}")
admin = {"Cookie": (headers.get("Set-Cookie") or "").split(";")[0]}
plugin = {"module": "oidc", "name": "oidc", "display_name": "oidc", "parameters": {
    "iss": OIDC, "jwt-type": "sha", "jwt-key-size": "256", "key": "swift-haapi-bench-signing-key-0123456789abcdef",
    "access-token-duration": 3600, "refresh-token-duration": 1209600, "code-duration": 600, "refresh-token-rolling": True,
    "allow-non-oidc": True, "auth-type-code-enabled": True, "auth-type-token-enabled": False, "auth-type-id-token-enabled": True,
    "auth-type-device-enabled": False, "auth-type-client-enabled": True, "auth-type-refresh-enabled": True,
    "auth-type-password-enabled": False,
    "oauth-dpop-allowed": True, "oauth-dpop-iat-duration": 60, "oauth-dpop-iat-gap-duration": 5, "oauth-dpop-nonce-mandatory": False,
    "register-client-allowed": True, "register-client-credentials-scope": ["g_profile"],
}}
status, _, answer = http("POST", f"{API}/mod/plugin/", plugin, admin)
if status != 200:
    sys.exit(f"glewlwyd OIDC plugin: {status} {answer}")
body = {"client_name": "swift-haapi-bench", "redirect_uris": ["https://client.example/cb"], "grant_types": ["client_credentials"],
        "response_types": ["code"], "token_endpoint_auth_method": "client_secret_basic"}
status, _, client = http("POST", f"{OIDC}/register", body)
if status != 200:
    sys.exit(f"glewlwyd client registration: {status} {client}")
print(client["client_id"], client["client_secret"])
