# Sourced by the scripts that install what they need (a bare Debian machine has neither the tools nor the
# Python packages). One place for the two ways we install: Debian packages and a project venv from PyPI.

# need_command COMMAND PACKAGE: installs PACKAGE with apt-get unless COMMAND is already on the PATH.
need_command() {
  command -v "$1" >/dev/null 2>&1 && return 0
  need_packages "$2"
  command -v "$1" >/dev/null 2>&1
}

# need_packages PACKAGE...: installs the Debian packages that are not installed yet; fails if apt-get cannot.
need_packages() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 || { echo "setup: apt-get is not available to install ${missing[*]}" >&2; return 1; }
  echo "setup: installing ${missing[*]}" >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# need_venv DIR REQUIREMENT...: a Python venv at DIR with the requirements installed from PyPI.
need_venv() {
  local venv="$1"
  shift
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"
}

# The Python packages of each venv, in one place: the scripts that use them and scripts/prepare-tools.sh
# (which installs everything ahead, while .ci/run builds) name the same versions.
interop_requirements=("joserfc>=1.6,<2")
passkeys_requirements=("webauthn>=2.0,<3" "fido2>=1.1,<2" "cbor2>=5.4,<6")
idpyoidc_requirements=("idpyoidc>=5,<6" "flask>=3,<4")
browser_requirements=("selenium>=4.20,<5" "pytest>=8,<10" "pexpect>=4.8,<5")
