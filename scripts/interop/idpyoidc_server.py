#!/usr/bin/env python3
"""A second OAuth + DPoP server we did not write, for `haapi check` (issue 43): IdentityPython's idpyoidc 5 from
PyPI, its DPoP add-on enabled on the token endpoint, served by a small Flask wrapper of ours on 127.0.0.1.

The wrapper only carries HTTP in and out of idpyoidc's endpoints (method, URL, headers, form body to `parse_request`,
`process_request`, `do_response`). What the server does with DPoP proofs, tokens and client authentication is
idpyoidc's own; the wrapper's workarounds for that server's bugs are marked WORKAROUND below, each with what it works
around, and none of them touches a DPoP decision.

Usage: idpyoidc_server.py --port PORT --client-id ID --client-secret-file FILE [--without-workaround]
Serves: /.well-known/oauth-authorization-server, /token, /introspection, /revocation, /jwks.json."""
import argparse
import json
import logging
import tempfile

from flask import Flask, Response, request
from idpyoidc.message.oauth2 import ResponseMessage
from idpyoidc.message.oidc import AccessTokenRequest
from idpyoidc.server import Server
from idpyoidc.server.configure import ASConfiguration

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, required=True)
parser.add_argument("--client-id", required=True)
parser.add_argument("--client-secret-file", required=True)
parser.add_argument("--without-workaround", action="store_true", help="serve idpyoidc's bug as it is")
options = parser.parse_args()
with open(options.client_secret_file) as handle:
    client_secret = handle.read().strip()

issuer = f"http://127.0.0.1:{options.port}"
# Keys made at start, in memory: RSA and P-256 to sign its JWT access tokens, symmetric ones for its own sessions.
signing_keys = [{"type": "RSA", "key": "", "use": ["sig"]}, {"type": "EC", "crv": "P-256", "use": ["sig"]}]
crypt = {"kwargs": {"keys": {"key_defs": [{"type": "OCT", "use": ["enc"], "kid": "password"},
                                          {"type": "OCT", "use": ["enc"], "kid": "salt"}]},
                    "iterations": 1}}
configuration = {
    "issuer": issuer,
    "httpc_params": {"verify": False, "timeout": 1},
    "keys": {"uri_path": "jwks.json", "key_defs": signing_keys},
    "endpoint": {
        "metadata": {"path": ".well-known/oauth-authorization-server",
                     "class": "idpyoidc.server.oauth2.server_metadata.ServerMetadata", "kwargs": {}},
        "token": {"path": "token", "class": "idpyoidc.server.oauth2.token.Token",
                  "kwargs": {"client_authn_method": ["client_secret_basic", "client_secret_post"]}},
        "introspection": {"path": "introspection", "class": "idpyoidc.server.oauth2.introspection.Introspection",
                          "kwargs": {"client_authn_method": ["client_secret_basic", "client_secret_post"]}},
        "revocation": {"path": "revocation", "class": "idpyoidc.server.oauth2.token_revocation.TokenRevocation",
                       "kwargs": {"client_authn_method": ["client_secret_basic", "client_secret_post"]}},
    },
    "add_ons": {"dpop": {"function": "idpyoidc.server.oauth2.add_on.dpop.add_support",
                         "kwargs": {"dpop_signing_alg_values_supported": ["ES256", "RS256"],
                                    "dpop_endpoints": ["token"]}}},
    "authentication": {"anon": {"acr": "urn:oasis:names:tc:SAML:2.0:ac:classes:InternetProtocolPassword",
                                "class": "idpyoidc.server.user_authn.user.NoAuthn", "kwargs": {"user": "diana"}}},
    "authz": {"class": "idpyoidc.server.authz.AuthzHandling",
              "kwargs": {"grant_config": {"usage_rules": {"access_token": {"expires_in": 600}}}}},
    "token_handler_args": {
        "code": {"lifetime": 600, "kwargs": {"crypt_conf": crypt}},
        "token": {"class": "idpyoidc.server.token.jwt_token.JWTToken",
                  "kwargs": {"lifetime": 3600, "aud": [issuer]}},
        "key_conf": {"key_defs": signing_keys},
    },
    "session_params": {"encrypter": crypt},
}
server = Server(ASConfiguration(conf=configuration, base_path=tempfile.mkdtemp()), cwd=tempfile.mkdtemp())
server.context.cdb[options.client_id] = {
    "client_id": options.client_id, "client_secret": client_secret, "client_salt": "salted",
    "token_endpoint_auth_method": "client_secret_basic",
    "grant_types_supported": ["client_credentials"], "allowed_scopes": ["read"],
}
server.context.keyjar.add_symmetric(options.client_id, client_secret)

# WORKAROUND (idpyoidc 5.0.0): its client_credentials helper looks for the client's previous grant with
# `session_manager.get(["client_credentials", client_id])`, which returns the client's session node, and then
# subscripts that node as if it were the dict `get_session_info` returns: from the second client_credentials request
# on, every one fails ("'ClientSessionInfo' object is not subscriptable", a 400 through the example's handler). The
# wrapper answers that one lookup with what the helper expects, the session information of the grant the first
# request made. The DPoP checks run before it, in `parse_request`, and are not touched.
manager = server.context.session_manager
look_up, add_grant = manager.get, manager.add_grant
client_credentials_grants = {}


def add_grant_remembering_client_credentials(path, *arguments, **keywords):
    branch_id = add_grant(path, *arguments, **keywords)
    if list(path[:1]) == ["client_credentials"]:
        client_credentials_grants[tuple(path)] = branch_id
    return branch_id


def get_previous_client_credentials_grant(path):
    branch_id = client_credentials_grants.get(tuple(path))
    if not branch_id or resolving:
        return look_up(path)
    # get_session_info walks the branch with `get` itself: those lookups go to idpyoidc's own.
    resolving.append(path)
    try:
        return manager.get_session_info(branch_id)
    finally:
        resolving.clear()


resolving = []  # one request at a time: the server runs with threaded=False


if not options.without_workaround:
    manager.add_grant, manager.get = add_grant_remembering_client_credentials, get_previous_client_credentials_grant

app = Flask(__name__)
logging.getLogger("werkzeug").setLevel(logging.ERROR)


def answer(endpoint_name):
    """One request through one idpyoidc endpoint, as the Flask example in idpyoidc's repository does (its
    `service_endpoint`): an exception while parsing a POST, a client authentication failure included, is a 400
    `invalid_request` carrying the exception's words; so is one while processing."""
    endpoint = server.get_endpoint(endpoint_name)
    http_info = {"headers": {key.lower(): value for key, value in request.headers.items()},
                 "method": request.method, "url": request.base_url, "cookie": []}
    arguments = request.form.to_dict() if request.method == "POST" else request.args.to_dict()
    try:
        parsed = endpoint.parse_request(arguments, http_info=http_info)
    except Exception as error:  # noqa: BLE001 - the example's behaviour, kept
        return refusal(str(error))
    if isinstance(parsed, ResponseMessage) and "error" in parsed:
        return Response(parsed.to_json(), status=400, content_type="application/json")
    try:
        if endpoint_name == "token":
            parsed = AccessTokenRequest(**parsed)
        outcome = endpoint.process_request(parsed, http_info=http_info)
    except Exception as error:  # noqa: BLE001
        return refusal(str(error))
    if isinstance(outcome, ResponseMessage) and "error" in outcome:
        return Response(outcome.to_json(), status=400, content_type="application/json")
    reply = endpoint.do_response(request=parsed, **outcome)
    return Response(reply["response"], status=reply.get("response_code", 200), headers=dict(reply["http_headers"]))


def refusal(description):
    body = ResponseMessage(error="invalid_request", error_description=description)
    return Response(body.to_json(), status=400, content_type="application/json")


@app.route("/.well-known/oauth-authorization-server")
def metadata():
    return answer("server_metadata")


@app.route("/jwks.json")
def jwks():
    return Response(json.dumps(server.keyjar.export_jwks(issuer_id="")), content_type="application/json")


@app.route("/token", methods=["POST"])
def token():
    return answer("token")


@app.route("/introspection", methods=["POST"])
def introspection():
    return answer("introspection")


@app.route("/revocation", methods=["POST"])
def revocation():
    return answer("token_revocation")


app.run(host="127.0.0.1", port=options.port, threaded=False)
