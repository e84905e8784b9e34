#!/usr/bin/env bash
# Release builds of different commits side by side in one run (issue 51 item 8): for each build, in turn and in
# a rotated order each round so that drift of the machine falls on all of them alike,
#   - /health idle at 8 connections,
#   - the DPoP token endpoint (client_credentials, a fresh ES256 proof per request) at 8 connections,
#   - /health at 8 connections while 2 clients log in with passwords in a loop.
# The load generators (haapi-bench proofs and logins) are the first build's for every build, so only the server
# differs. Prints every round and the median per build.
#   scripts/bench/compare-builds.sh ROUNDS LABEL=BIN-FOLDER [LABEL=BIN-FOLDER ...]
# A BIN-FOLDER holds `haapi` and `haapi-bench` (the last line scripts/release.sh prints for that commit).
set -euo pipefail
rounds="$1"
shift
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/bench/serve-url.sh"
source "$root/scripts/lib/setup.sh"
need_command wrk wrk
seconds=5
labels=()
folders=()
for build in "$@"; do
  labels+=("${build%%=*}")
  folders+=("${build#*=}")
done
tools="${folders[0]}"
work="$(mktemp -d /dev/shm/haapi-compare.XXXXXX)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
authorization="Basic $(printf 'haapi-dcr-main:dcr-main-secret-change-me' | base64 -w0)"
results="$work/results.tsv"
: >"$results"

summary() { python3 "$root/scripts/bench/wrk_summary.py" "$1" 8 "$2" | cut -f4,7; }

measure() {
  local label="$1" bin="$2" round="$3"
  rm -f "$work"/haapi.sqlite*
  "$bin/haapi" serve --port 0 --db "$work/haapi.sqlite" >"$work/serve.log" 2>&1 &
  pid=$!
  local url
  url="$(serve_url "$work/serve.log" 10)"
  [ -n "$url" ] || { cat "$work/serve.log"; exit 1; }
  wrk -t1 -c2 -d2s "$url/health" >/dev/null
  wrk -t2 -c8 -d"${seconds}s" --latency "$url/health" >"$work/idle.log"
  "$tools/haapi-bench" proofs --htu "$url/oauth/token" --count $(( 40000 * seconds )) --output "$work/proofs.txt"
  wrk -t2 -c8 -d"${seconds}s" --latency -s "$root/scripts/bench/dpop-token.lua" "$url/oauth/token" -- \
    "$work/proofs.txt" "$authorization" "grant_type=client_credentials&scope=dcr" 2 >"$work/token.log"
  "$tools/haapi-bench" logins --url "$url" --clients 2 --seconds $(( seconds + 3 )) >"$work/logins.log" 2>&1 &
  local logins=$!
  sleep 1
  wrk -t2 -c8 -d"${seconds}s" --latency "$url/health" >"$work/loaded.log"
  wait "$logins"
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  local idle token loaded login_rate
  idle=$(summary idle "$work/idle.log")
  token=$(summary token "$work/token.log")
  loaded=$(summary loaded "$work/loaded.log")
  login_rate=$(awk '/^logins\/s/ {print $2}' "$work/logins.log")
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$round" "$idle" "$token" "$loaded" "${login_rate:-0}" | tee -a "$results"
}

echo -e "build\tround\thealth_idle/s\tp99_ms\ttoken/s\tp99_ms\thealth_under_logins/s\tp99_ms\tlogins/s"
count=${#labels[@]}
for round in $(seq 1 "$rounds"); do
  for offset in $(seq 0 $(( count - 1 ))); do
    index=$(( (offset + round - 1) % count ))
    measure "${labels[$index]}" "${folders[$index]}" "$round"
  done
done
python3 - "$results" <<'PY'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
builds = []
for row in rows:
    if row[0] not in builds:
        builds.append(row[0])
print("\nmedian of the rounds")
print("build\thealth idle/s\ttoken/s\thealth under logins/s\tunder logins ÷ idle\tlogins/s")
for build in builds:
    mine = [row for row in rows if row[0] == build]
    med = lambda column: statistics.median(float(row[column]) for row in mine)
    print(f"{build}\t{med(2):.0f}\t{med(4):.0f}\t{med(6):.0f}\t{med(6) / med(2):.2f}\t{med(8):.1f}")
PY
