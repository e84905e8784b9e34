#!/usr/bin/env bash
# Interop checks against independent implementations. Installs what it needs itself:
# Python venvs from PyPI (.venv-interop with joserfc, .venv-passkeys, .venv-idpyoidc with idpyoidc and Flask).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

source "$root/scripts/lib/setup.sh"
venv="$root/.venv-interop"
need_venv "$venv" "${interop_requirements[@]}"

# HAAPI_BIN: a haapi built already (.ci/run passes the test build's, so nothing is compiled twice).
if [ -n "${HAAPI_BIN:-}" ]; then
  haapi="$HAAPI_BIN"
else
  echo "interop: building haapi"
  swift build --package-path Workbench --product haapi >/dev/null
  haapi="$(swift build --package-path Workbench --show-bin-path)/haapi"
fi

echo "interop: JOSE and DPoP made by haapi, checked with joserfc $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("joserfc"))')"
"$venv/bin/python" "$root/scripts/interop/verify_jose.py" --haapi "$haapi"

echo "interop: passkeys made by haapi, checked with py_webauthn, python-fido2 and cbor2 (own venv: py_webauthn pins an older cryptography)"
passkeys_venv="$root/.venv-passkeys"
need_venv "$passkeys_venv" "${passkeys_requirements[@]}"
rm -rf "$root/.build-interop-passkeys"
"$passkeys_venv/bin/python" -W ignore "$root/scripts/interop/verify_passkeys.py" --haapi "$haapi" --work "$root/.build-interop-passkeys"

echo "interop: the SDK's OAuth side against glewlwyd 2.7.5 (Debian), an OAuth server we did not write"
work="$root/.glewlwyd"
mkdir -p "$work"
bash "$root/scripts/interop/glewlwyd-start.sh" "$work" >/dev/null
trap 'kill "$(cat "$work/pid")" 2>/dev/null || true' EXIT
"$venv/bin/python" "$root/scripts/interop/glewlwyd_sdk.py" --haapi "$haapi" --work "$work"

echo "interop: haapi check against glewlwyd (discovery, DPoP and the login-free hygiene checks; HAAPI absent)"
"$venv/bin/python" "$root/scripts/interop/glewlwyd_check.py" --haapi "$haapi" --work "$work"

echo "interop: haapi check against idpyoidc (IdentityPython, PyPI) with its DPoP add-on, a second server we did not write; what it really does is established by direct requests first"
idpyoidc_venv="$root/.venv-idpyoidc"
need_venv "$idpyoidc_venv" "${idpyoidc_requirements[@]}"
"$idpyoidc_venv/bin/python" "$root/scripts/interop/idpyoidc_check.py" --haapi "$haapi" --work "$root/.build-interop-idpyoidc"
