#!/usr/bin/env bash
# Installs ahead what the interop and browser scripts need (Debian's chromium and its driver, WebKitGTK's driver
# and Xvfb, the Python venvs, glewlwyd unpacked in .glewlwyd), so .ci/run fetches them while it builds. Each script still installs what is
# missing itself when run alone; this only does it earlier. Idempotent.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/setup.sh"
need_packages chromium chromium-driver webkit2gtk-driver xvfb
need_venv "$root/.venv-browser" "${browser_requirements[@]}"
need_venv "$root/.venv-interop" "${interop_requirements[@]}"
need_venv "$root/.venv-passkeys" "${passkeys_requirements[@]}"
need_venv "$root/.venv-idpyoidc" "${idpyoidc_requirements[@]}"
mkdir -p "$root/.glewlwyd"
bash "$root/scripts/interop/glewlwyd-start.sh" "$root/.glewlwyd" --fetch-only
echo "prepare-tools: done"
