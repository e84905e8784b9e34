#!/usr/bin/env bash
# Tests in real browsers (Workbench/Tests/Browser): headless Chromium from Debian (chromium, chromium-driver) and WebKit,
# Safari's engine (webkit2gtk-driver: WebKitGTK's MiniBrowser and WebKitWebDriver, on an Xvfb display), driven
# by Selenium from PyPI, against `haapi serve` and `haapi login` built here. It installs what is missing;
# if a browser cannot be installed it says so and fails (the tests are never skipped quietly).
# Screenshots of every page, and a failing test's HTML and console log, go to BROWSER_ARTIFACTS
# (.build/browser-artifacts by default).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
source "$root/scripts/lib/setup.sh"

if ! need_packages chromium chromium-driver || [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  echo "browser: FAILED: Chromium and its driver could not be installed (apt-get install chromium chromium-driver)"
  exit 1
fi
if ! need_packages webkit2gtk-driver xvfb || [ ! -x /usr/bin/WebKitWebDriver ] || ! command -v Xvfb >/dev/null; then
  echo "browser: FAILED: WebKit could not be installed (apt-get install webkit2gtk-driver xvfb)"
  exit 1
fi
minibrowser="$(ls /usr/lib/*/webkit2gtk-4.*/MiniBrowser 2>/dev/null | head -n 1 || true)"
if [ -z "$minibrowser" ]; then
  echo "browser: FAILED: webkit2gtk-driver is installed but WebKitGTK's MiniBrowser is not (libwebkit2gtk-4.1-0)"
  exit 1
fi
export WEBKIT_BROWSER_BIN="$minibrowser"
need_venv "$root/.venv-browser" "${browser_requirements[@]}"

# HAAPI_BIN: a haapi built already (.ci/run passes the test build's, so nothing is compiled twice).
if [ -z "${HAAPI_BIN:-}" ]; then
  echo "browser: building haapi"
  swift build --package-path Workbench --product haapi >/dev/null 2>&1 \
    || { swift build --package-path Workbench --product haapi; exit 1; }
  export HAAPI_BIN="$(swift build --package-path Workbench --show-bin-path)/haapi"
fi
export BROWSER_ARTIFACTS="${BROWSER_ARTIFACTS:-$root/.build/browser-artifacts}"
rm -rf "$BROWSER_ARTIFACTS"
mkdir -p "$BROWSER_ARTIFACTS"

echo "browser: $(/usr/bin/chromium --version 2>/dev/null | head -n 1), WebKitGTK $(dpkg-query -W -f='${Version}' libwebkit2gtk-4.1-0 2>/dev/null), selenium $("$root/.venv-browser/bin/python" -c 'import selenium; print(selenium.__version__)')"
cd "$root/Workbench/Tests/Browser"
status=0
"$root/.venv-browser/bin/python" -m pytest -q -p no:cacheprovider -W ignore::DeprecationWarning "$@" || status=$?
echo "browser: screenshots and logs in $BROWSER_ARTIFACTS"
exit $status
