#!/usr/bin/env bash
# Starts Debian bookworm's glewlwyd 2.7.5 (an independent OAuth 2.0 / OIDC server with DPoP, RFC 7591,
# RFC 7009 and RFC 7523) on 127.0.0.1:4593, without a system install: the packages are fetched with
# `apt-get download` and unpacked with `dpkg -x` into WORKDIR. Prints the server's PID.
# Usage: glewlwyd-start.sh WORKDIR        Stop: kill "$(cat WORKDIR/pid)"
#        glewlwyd-start.sh WORKDIR --fetch-only   (download and unpack, start nothing)
set -euo pipefail
work="$1"
root="$work/root"
mkdir -p "$work/debs" "$root"
if [ ! -x "$root/usr/bin/glewlwyd" ]; then
  packages="glewlwyd glewlwyd-common libconfig9 liborcania2.3 libyder2.0 libulfius2.7 libhoel1.4 libiddawc1.1 liboath0 librhonabwy1.1 libmicrohttpd12 libmariadb3"
  (cd "$work/debs" && { apt-get download $packages >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get download $packages >/dev/null 2>&1; }; })
  for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$root"; done
fi
source "$(cd "$(dirname "$0")/../lib" && pwd)/setup.sh"
need_command sqlite3 sqlite3
[ "${2:-}" = "--fetch-only" ] && exit 0
# The multiarch folder of this machine (x86_64-linux-gnu, aarch64-linux-gnu, …): Debian ships glewlwyd for
# each of its architectures, and apt-get download fetched this machine's.
multiarch="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo "$(uname -m)-linux-gnu")"
export LD_LIBRARY_PATH="$root/usr/lib/$multiarch"
mkdir -p "$root/usr/lib/glewlwyd/user_middleware"
rm -f "$work/glewlwyd.db"
zcat "$root/usr/share/doc/glewlwyd/database/init.sqlite3.sql.gz" | sqlite3 "$work/glewlwyd.db"
# Leave use_secure_connection out entirely: 2.7.5 asks for TLS files even when it is false.
cat > "$work/glewlwyd.conf" <<CONF
port=4593
bind_address="127.0.0.1"
external_url="http://localhost:4593"
login_url="login.html"
api_prefix="api"
static_files_path="$root/usr/share/glewlwyd/webapp/"
allow_origin="*"
log_mode="file"
log_level="INFO"
log_file="$work/glewlwyd.log"
cookie_domain="localhost"
cookie_secure=0
session_expiration=3600
session_key="GLEWLWYD2_SESSION_ID"
admin_session_authentication="cookie"
profile_session_authentication="cookie"
allow_multiple_user_per_session=true
login_api_enabled=true
max_post_size=1048576
admin_scope="g_admin"
profile_scope="g_profile"
user_module_path="$root/usr/lib/glewlwyd/user"
user_middleware_module_path="$root/usr/lib/glewlwyd/user_middleware"
client_module_path="$root/usr/lib/glewlwyd/client"
user_auth_scheme_module_path="$root/usr/lib/glewlwyd/scheme"
plugin_module_path="$root/usr/lib/glewlwyd/plugin"
hash_algorithm = "SHA512"
database = { type = "sqlite3"; path = "$work/glewlwyd.db" };
CONF
nohup "$root/usr/bin/glewlwyd" --config-file="$work/glewlwyd.conf" >"$work/stdout.log" 2>&1 &
echo $! >"$work/pid"
for _ in $(seq 1 100); do
  (exec 3<>/dev/tcp/127.0.0.1/4593) 2>/dev/null && break
  sleep 0.1
done
cat "$work/pid"
