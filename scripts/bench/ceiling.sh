#!/usr/bin/env bash
# What the DPoP token endpoint's request costs before any of the endpoint's own work: a scratch copy of HEAD
# with three measurement routes (scripts/bench/ceiling-routes.patch) gets the token endpoint's exact
# requests (same headers, DPoP proof and form body) under wrk, 8 connections, next to /health and the token
# endpoint itself. docs/BENCHMARKS.md ("The ceiling, measured") quotes it.
#   scripts/bench/ceiling.sh [rounds] [seconds-per-phase]     (default 2 rounds of 4 s phases)
# Routes: /ceiling/body collects the body; /ceiling/form also parses the form; /ceiling/signature also checks
# one P-256 signature (a fixed key, 420 bytes). Prints per phase: requests/s, the server's CPU per request
# (/proc/PID/stat) and requests/s ÷ /health's. The first run builds the copy (plain `swift build -c release`,
# not scripts/release.sh: the routes are compared with each other, in one binary; 10 minutes or more) in
# .build-ceiling; the product is never built with the patch. Needs wrk (installed from Debian when missing).
set -euo pipefail
rounds="${1:-2}"
seconds="${2:-4}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/bench/serve-url.sh"
source "$root/scripts/lib/setup.sh"
need_command wrk wrk

scratch="$root/.build-ceiling"
source_copy="$scratch/source"
rm -rf "$source_copy"
mkdir -p "$source_copy"
git -C "$root" archive HEAD | tar -x -C "$source_copy"
patch -s -d "$source_copy" -p1 <"$root/scripts/bench/ceiling-routes.patch"
echo "ceiling: release build of HEAD with the measurement routes" >&2
for product in haapi haapi-bench; do
  swift build -c release --package-path "$source_copy/Workbench" --scratch-path "$scratch/build" --product "$product" \
    >"$scratch/build.log" 2>&1 || { tail -n 40 "$scratch/build.log"; exit 1; }
done
bin="$(swift build -c release --package-path "$source_copy/Workbench" --scratch-path "$scratch/build" --show-bin-path)"

work="$(mktemp -d /dev/shm/haapi-ceiling.XXXXXX)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
authorization="Basic $(printf 'haapi-dcr-main:dcr-main-secret-change-me' | base64 -w0)"
ticks_per_second=$(getconf CLK_TCK)
for round in $(seq "$rounds"); do
  "$bin/haapi" serve --port 0 --db "$work/haapi.sqlite" >"$work/serve.log" 2>&1 &
  pid=$!
  url="$(serve_url "$work/serve.log" 10)"
  [ -n "$url" ] || { echo "ceiling: haapi serve did not start"; cat "$work/serve.log"; exit 1; }
  wrk -t1 -c2 -d1s "$url/health" >/dev/null
  echo "round $round"
  health_rate=""
  for path in health ceiling/body ceiling/form ceiling/signature oauth/token; do
    "$bin/haapi-bench" proofs --htu "$url/oauth/token" --count "$(( 40000 * seconds ))" \
      --output "$work/proofs.txt" >/dev/null
    before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    if [ "$path" = health ]; then
      wrk -t2 -c8 -d"${seconds}s" "$url/health" >"$work/wrk.log"
    else
      wrk -t2 -c8 -d"${seconds}s" -s "$root/scripts/bench/dpop-token.lua" "$url/$path" -- \
        "$work/proofs.txt" "$authorization" "grant_type=client_credentials&scope=dcr" 2 >"$work/wrk.log"
    fi
    after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    requests=$(awk '/requests in/ {print $1}' "$work/wrk.log")
    errors=$(awk '/Non-2xx/ {print $NF}' "$work/wrk.log")
    rate=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.log")
    [ -n "$health_rate" ] || health_rate="$rate"
    awk -v p="/$path" -v r="$rate" -v h="$health_rate" -v n="$requests" -v c=$((after - before)) \
      -v hz="$ticks_per_second" -v e="${errors:-0}" \
      'BEGIN { printf "  %-20s %8.0f req/s  %6.1f us/request  %.2fx /health  non-2xx %s\n", p, r, c * 1e6 / hz / n, r / h, e }'
  done
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=""
  rm -f "$work"/haapi.sqlite*
done
