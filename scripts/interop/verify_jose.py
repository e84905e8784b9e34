#!/usr/bin/env python3
"""Independent checks of what the `haapi` CLI signs, using joserfc (not our code).

    verify_jose.py --haapi PATH/TO/haapi

For every JWS algorithm: haapi signs and joserfc verifies; joserfc signs and haapi verifies; a tampered
token is refused by both. For DPoP: the proof from `haapi dpop` is checked claim by claim, its signature
verified with the header jwk, its ath recomputed with hashlib, and its thumbprint compared with
joserfc's RFC 7638 thumbprint and with `haapi jwk thumbprint`. Ends with 'N passed, N failed'.
"""
import argparse
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

from joserfc import jws
from joserfc.jwk import ECKey, OctKey, RSAKey, import_key

RESULTS = []


def check(name, ok, detail=""):
    RESULTS.append(bool(ok))
    print(("PASS " if ok else "FAIL ") + name + ("" if ok or not detail else f" ({detail})"))


def b64u_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def run(haapi, *args, stdin=b""):
    return subprocess.run([haapi, *args], input=stdin, capture_output=True)


def keys():
    return {
        "ES256": ECKey.generate_key("P-256"), "ES384": ECKey.generate_key("P-384"), "ES512": ECKey.generate_key("P-521"),
        "RS256": RSAKey.generate_key(2048), "RS384": RSAKey.generate_key(2048), "RS512": RSAKey.generate_key(2048),
        "PS256": RSAKey.generate_key(2048), "PS384": RSAKey.generate_key(2048), "PS512": RSAKey.generate_key(2048),
        "HS256": OctKey.generate_key(256), "HS384": OctKey.generate_key(384), "HS512": OctKey.generate_key(512),
    }


def write_jwk(directory, name, data):
    path = os.path.join(directory, name)
    with open(path, "w") as handle:
        json.dump(data, handle)
    return path


def jws_checks(haapi, directory):
    payload = json.dumps({"iss": "swift-haapi", "n": 1, "text": "é & +"}).encode()
    for alg, key in keys().items():
        private_path = write_jwk(directory, f"{alg}.private.json", key.as_dict(private=True))
        public_path = private_path if alg.startswith("HS") else write_jwk(directory, f"{alg}.public.json", key.as_dict(private=False))

        signed = run(haapi, "jws", "sign", "--key", private_path, "--alg", alg, stdin=payload)
        token = signed.stdout.decode().strip()
        try:
            obj = jws.deserialize_compact(token, key, algorithms=[alg])
            check(f"{alg}: haapi signs, joserfc verifies", obj.payload == payload and obj.protected["alg"] == alg)
        except Exception as error:  # noqa: BLE001 - report any failure as a failed check
            check(f"{alg}: haapi signs, joserfc verifies", False, f"{error}; stderr={signed.stderr.decode().strip()}")

        foreign = jws.serialize_compact({"alg": alg, "kid": "py"}, payload, key, algorithms=[alg])
        verified = run(haapi, "jws", "verify", "--key", public_path, "--alg", alg, foreign)
        check(f"{alg}: joserfc signs, haapi verifies", verified.returncode == 0 and verified.stdout.strip() == payload,
              verified.stderr.decode().strip())

        header, body, signature = foreign.split(".")
        tampered_payload = b64u(payload.replace(b"swift-haapi", b"someone-else"))
        tampered = f"{header}.{tampered_payload}.{signature}"
        refused = run(haapi, "jws", "verify", "--key", public_path, "--alg", alg, tampered)
        check(f"{alg}: haapi refuses a tampered payload", refused.returncode == 1)


def dpop_checks(haapi, directory):
    key_path = os.path.join(directory, "dpop-key.json")
    access_token = "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"
    before = int(time.time())
    result = run(haapi, "dpop", "--method", "post", "--url", "https://server.example.com/token?client_id=x#frag",
                 "--nonce", "eyJ7S_zG.eyJH0-Z.HX4w-7v", "--access-token", access_token, "--key", key_path)
    proof = result.stdout.decode().strip()
    check("dpop: command succeeded and created the key file", result.returncode == 0 and os.path.exists(key_path),
          result.stderr.decode().strip())
    check("dpop: key file mode is 0600", oct(os.stat(key_path).st_mode & 0o777) == "0o600")

    header = json.loads(b64u_decode(proof.split(".")[0]))
    claims = json.loads(b64u_decode(proof.split(".")[1]))
    check("dpop: typ is dpop+jwt", header.get("typ") == "dpop+jwt")
    check("dpop: alg is ES256", header.get("alg") == "ES256")
    header_key = import_key(header["jwk"])
    check("dpop: header jwk has no private member", not any(m in header["jwk"] for m in ("d", "p", "q", "dp", "dq", "qi", "k")))
    try:
        obj = jws.deserialize_compact(proof, header_key, algorithms=["ES256"])
        check("dpop: signature verifies with the header jwk (joserfc)", json.loads(obj.payload) == claims)
    except Exception as error:  # noqa: BLE001
        check("dpop: signature verifies with the header jwk (joserfc)", False, str(error))
    check("dpop: htm", claims.get("htm") == "POST")
    check("dpop: htu without query and fragment", claims.get("htu") == "https://server.example.com/token")
    check("dpop: iat is now", before - 5 <= claims.get("iat", 0) <= int(time.time()) + 5)
    check("dpop: jti present and long enough", isinstance(claims.get("jti"), str) and len(claims["jti"]) >= 16)
    check("dpop: nonce", claims.get("nonce") == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
    expected_ath = b64u(hashlib.sha256(access_token.encode("ascii")).digest())
    check("dpop: ath = base64url(sha256(token)) (RFC 9449 §7.1 value)",
          claims.get("ath") == expected_ath == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")

    second = run(haapi, "dpop", "--method", "GET", "--url", "https://server.example.com/x", "--key", key_path).stdout.decode().strip()
    second_claims = json.loads(b64u_decode(second.split(".")[1]))
    check("dpop: a second proof reuses the key and has a fresh jti",
          json.loads(b64u_decode(second.split(".")[0]))["jwk"] == header["jwk"] and second_claims["jti"] != claims["jti"])

    cli_thumbprint = run(haapi, "jwk", "thumbprint", key_path).stdout.decode().strip()
    check("thumbprint: haapi matches joserfc for the DPoP key", cli_thumbprint == header_key.thumbprint())

    rfc7638 = {"kty": "RSA", "n": "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw", "e": "AQAB", "alg": "RS256", "kid": "2011-04-29"}
    path = write_jwk(directory, "rfc7638.json", rfc7638)
    ours = run(haapi, "jwk", "thumbprint", path).stdout.decode().strip()
    check("thumbprint: RFC 7638 §3.1 vector, haapi = joserfc = published",
          ours == import_key(rfc7638).thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--haapi", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        jws_checks(args.haapi, directory)
        dpop_checks(args.haapi, directory)
    failed = RESULTS.count(False)
    print(f"{RESULTS.count(True)} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
