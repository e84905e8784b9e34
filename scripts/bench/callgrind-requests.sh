#!/usr/bin/env bash
# Instructions per request of `haapi serve`, counted by callgrind (stable from run to run, unlike time on a
# shared machine): 300 requests of warm-up with instrumentation off, then N requests with it on, one at a
# time on one keep-alive connection. docs/BENCHMARKS.md quotes its counts.
#   scripts/bench/callgrind-requests.sh BIN-FOLDER health|token|PATH [requests]     (default 2000)
# `token` sends the token requests of scripts/bench.sh (client_credentials, Basic, a fresh DPoP proof each);
# a PATH (for example ceiling/form, with scripts/bench/ceiling.sh's build) gets the same POST. Prints the
# instructions per request and leaves the profile in .build-bench/callgrind-TARGET.out for
# callgrind_annotate. Needs valgrind (installed from Debian when missing).
set -euo pipefail
bin="$1"
target="$2"
requests="${3:-2000}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/bench/serve-url.sh"
source "$root/scripts/lib/setup.sh"
need_command valgrind valgrind
mkdir -p "$root/.build-bench"
profile="$root/.build-bench/callgrind-${target//\//-}.out"
work="$(mktemp -d /dev/shm/haapi-callgrind.XXXXXX)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
# Without debug information: valgrind cannot read lld's DWARF here.
objcopy --strip-debug "$bin/haapi" "$work/haapi"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/profile" \
  "$work/haapi" serve --port 0 --db "$work/haapi.sqlite" >"$work/serve.log" 2>&1 &
pid=$!
url="$(serve_url "$work/serve.log" 60)"
[ -n "$url" ] || { echo "callgrind-requests: haapi serve did not start"; cat "$work/serve.log"; exit 1; }
"$bin/haapi-bench" proofs --htu "$url/oauth/token" --count $((requests + 300)) --output "$work/proofs.txt"
python3 - "$url" "$target" "$requests" "$work/proofs.txt" "$pid" <<'PY'
import base64, http.client, subprocess, sys, urllib.parse
url, target, count, proofs_file, pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
proofs = open(proofs_file).read().split("\n")
address = urllib.parse.urlparse(url)
connection = http.client.HTTPConnection(address.hostname, address.port)
authorization = "Basic " + base64.b64encode(b"haapi-dcr-main:dcr-main-secret-change-me").decode()
sent = 0
def one():
    global sent
    if target == "health":
        connection.request("GET", "/health")
    else:
        path = "/oauth/token" if target == "token" else "/" + target
        connection.request("POST", path, body="grant_type=client_credentials&scope=dcr", headers={
            "Authorization": authorization, "DPoP": proofs[sent],
            "Content-Type": "application/x-www-form-urlencoded"})
    sent += 1
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"callgrind-requests: {target} answered {response.status}")
for _ in range(300):
    one()
subprocess.run(["callgrind_control", "-i", "on", pid], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for _ in range(count):
    one()
subprocess.run(["callgrind_control", "-i", "off", pid], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
subprocess.run(["callgrind_control", "-d", pid], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
PY
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=""
# The dump on demand is the profile's first part (.1); the rest of the run after it is not counted.
cp "$work/profile.1" "$profile"
total=$(callgrind_annotate "$profile" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
echo "$target: $((total / requests)) instructions per request ($requests requests; profile $profile)"
