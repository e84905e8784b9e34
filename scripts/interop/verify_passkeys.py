#!/usr/bin/env python3
"""What `haapi passkey register|authenticate` prints, checked by two independent relying-party libraries:
py_webauthn (Duo Labs) and python-fido2 (Yubico). Both generate the options, our software authenticator
answers them, and the libraries verify the answers: attestation (none and packed self), signatures,
flags and counters. Usage: verify_passkeys.py --haapi PATH --work DIR. Prints PASS/FAIL lines and a summary."""
import argparse
import base64
import json
import os
import subprocess

import cbor2
from fido2.server import Fido2Server
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import (AttestationObject, AuthenticatorData, CollectedClientData, PublicKeyCredentialRpEntity,
                            PublicKeyCredentialUserEntity, UserVerificationRequirement as Fido2UV)
from webauthn import (generate_authentication_options, generate_registration_options, options_to_json,
                      verify_authentication_response, verify_registration_response)
from webauthn.helpers.structs import (AttestationConveyancePreference, AuthenticatorSelectionCriteria, PublicKeyCredentialDescriptor,
                                      ResidentKeyRequirement, UserVerificationRequirement)

RP_ID = "example.com"
ORIGIN = "https://login.example.com"
results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(("PASS " if ok else "FAIL ") + name + (f"  [{detail}]" if detail and not ok else ""))


def haapi(*arguments, options):
    path = os.path.join(WORK, "options.json")
    with open(path, "w") as handle:
        handle.write(options)
    run = subprocess.run([HAAPI, "passkey", *arguments, "--options", path, "--origin", ORIGIN, "--store", STORE],
                         capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        raise SystemExit(f"haapi passkey {arguments[0]} failed: {run.stderr}")
    return run.stdout.strip()


parser = argparse.ArgumentParser()
parser.add_argument("--haapi", required=True)
parser.add_argument("--work", required=True)
options = parser.parse_args()
HAAPI, WORK = options.haapi, options.work
os.makedirs(WORK, exist_ok=True)

# py_webauthn: registration with none and with packed self attestation, then two sign-ins each.
for attestation in ("none", "packed"):
    STORE = os.path.join(WORK, f"store-{attestation}")
    registration_options = generate_registration_options(
        rp_id=RP_ID, rp_name="Example", user_name=f"alice-{attestation}",
        attestation=AttestationConveyancePreference.DIRECT if attestation == "packed" else AttestationConveyancePreference.NONE,
        authenticator_selection=AuthenticatorSelectionCriteria(resident_key=ResidentKeyRequirement.REQUIRED,
                                                               user_verification=UserVerificationRequirement.REQUIRED))
    response = haapi("register", "--attestation", attestation, options=options_to_json(registration_options))
    encoded = json.loads(response)["response"]["attestationObject"]
    attestation_object = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    decoded = cbor2.loads(attestation_object)
    check(f"cbor2 round trip: the {attestation} attestationObject is canonical CBOR",
          cbor2.dumps(decoded, canonical=True) == attestation_object and decoded["fmt"] == attestation)
    try:
        verified = verify_registration_response(credential=response, expected_challenge=registration_options.challenge,
                                                expected_rp_id=RP_ID, expected_origin=ORIGIN, require_user_verification=True)
        fmt = getattr(verified.fmt, "value", verified.fmt)
        check(f"py_webauthn verifies the {attestation} registration", fmt == attestation and verified.user_verified,
              f"fmt={verified.fmt}")
    except Exception as error:  # the library raises on any failed check
        check(f"py_webauthn verifies the {attestation} registration", False, repr(error))
        continue
    count = verified.sign_count
    for attempt in (1, 2):
        request = generate_authentication_options(rp_id=RP_ID, allow_credentials=[PublicKeyCredentialDescriptor(id=verified.credential_id)],
                                                  user_verification=UserVerificationRequirement.REQUIRED)
        assertion = haapi("authenticate", options=options_to_json(request))
        try:
            result = verify_authentication_response(credential=assertion, expected_challenge=request.challenge, expected_rp_id=RP_ID,
                                                    expected_origin=ORIGIN, credential_public_key=verified.credential_public_key,
                                                    credential_current_sign_count=count, require_user_verification=True)
            check(f"py_webauthn verifies sign-in {attempt} ({attestation}); the counter grows", result.new_sign_count == count + 1,
                  f"{count} -> {result.new_sign_count}")
            count = result.new_sign_count
        except Exception as error:
            check(f"py_webauthn verifies sign-in {attempt} ({attestation})", False, repr(error))
    # A replayed assertion (same counter) must be refused by the library too.
    try:
        verify_authentication_response(credential=assertion, expected_challenge=request.challenge, expected_rp_id=RP_ID, expected_origin=ORIGIN,
                                       credential_public_key=verified.credential_public_key, credential_current_sign_count=count,
                                       require_user_verification=True)
        check(f"py_webauthn refuses a replayed sign-in ({attestation})", False, "accepted")
    except Exception:
        check(f"py_webauthn refuses a replayed sign-in ({attestation})", True)

# python-fido2: its server makes the options; our answers go through register_complete / authenticate_complete.
STORE = os.path.join(WORK, "store-fido2")
server = Fido2Server(PublicKeyCredentialRpEntity(id=RP_ID, name="Example"), attestation="direct",
                     verify_origin=lambda origin: origin == ORIGIN)
creation, state = server.register_begin(PublicKeyCredentialUserEntity(id=b"bob-user-handle", name="bob", display_name="Bob"),
                                        user_verification=Fido2UV.REQUIRED)
public_key = dict(creation)["publicKey"]
creation_json = json.dumps({
    "rp": dict(public_key["rp"]), "user": {"id": websafe_encode(public_key["user"]["id"]), "name": public_key["user"]["name"],
                                           "displayName": public_key["user"]["displayName"]},
    "challenge": websafe_encode(public_key["challenge"]),
    "pubKeyCredParams": [{"type": "public-key", "alg": param["alg"]} for param in public_key["pubKeyCredParams"]],
    "authenticatorSelection": {"userVerification": "required"}, "attestation": "direct"})
registration = json.loads(haapi("register", "--attestation", "packed", options=creation_json))
try:
    response = registration["response"]
    auth_data = server.register_complete(state, client_data=CollectedClientData(websafe_decode(response["clientDataJSON"])),
                                         attestation_object=AttestationObject(websafe_decode(response["attestationObject"])))
    check("python-fido2 accepts the packed registration", auth_data.credential_data is not None)
except Exception as error:
    check("python-fido2 accepts the packed registration", False, repr(error))
    auth_data = None
if auth_data is not None:
    request, state = server.authenticate_begin([auth_data.credential_data], user_verification=Fido2UV.REQUIRED)
    request_key = dict(request)["publicKey"]
    request_json = json.dumps({"challenge": websafe_encode(request_key["challenge"]), "rpId": RP_ID, "userVerification": "required",
                               "allowCredentials": [{"type": "public-key", "id": websafe_encode(c["id"])} for c in request_key["allowCredentials"]]})
    assertion = json.loads(haapi("authenticate", options=request_json))
    try:
        response = assertion["response"]
        server.authenticate_complete(state, [auth_data.credential_data], websafe_decode(assertion["rawId"]),
                                     CollectedClientData(websafe_decode(response["clientDataJSON"])),
                                     AuthenticatorData(websafe_decode(response["authenticatorData"])), websafe_decode(response["signature"]))
        check("python-fido2 accepts the sign-in", True)
    except Exception as error:
        check("python-fido2 accepts the sign-in", False, repr(error))

print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
raise SystemExit(0 if all(results) else 1)
