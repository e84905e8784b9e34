#!/usr/bin/env bash
# Where a request's CPU goes in `haapi serve`, by thread: for /health and for the DPoP token endpoint (the same
# requests as scripts/bench.sh), 8 connections under wrk, prints per request the CPU time of each server thread
# (from /proc/PID/task/*/stat) and its voluntary and involuntary context switches. The by-thread table of
# docs/BENCHMARKS.md ("The handlers run on SwiftNIO's event loops") comes from it.
#   scripts/bench/per-request.sh BIN-FOLDER [seconds-per-phase]
# BIN-FOLDER holds `haapi` and `haapi-bench` (the last line scripts/release.sh prints). Needs wrk.
set -euo pipefail
bin="$1"
seconds="${2:-6}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/bench/serve-url.sh"
work="$(mktemp -d /dev/shm/haapi-per-request.XXXXXX)"
"$bin/haapi" serve --port 0 --db "$work/haapi.sqlite" >"$work/serve.log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
url="$(serve_url "$work/serve.log" 10)"
[ -n "$url" ] || { echo "per-request: haapi serve did not start"; cat "$work/serve.log"; exit 1; }
authorization="Basic $(printf 'haapi-dcr-main:dcr-main-secret-change-me' | base64 -w0)"
ticks_per_second=$(getconf CLK_TCK)

# One line per thread: id, name (spaces removed), voluntary and involuntary switches, CPU ticks (user + system).
snapshot() {
  for task in /proc/"$pid"/task/*; do
    printf '%s %s %s %s\n' "$(basename "$task")" "$(tr -d ' ' <"$task/comm")" \
      "$(awk '/^voluntary_ctxt/ {v = $2} /^nonvoluntary_ctxt/ {n = $2} END {print v, n}' "$task/status")" \
      "$(awk '{print $14 + $15}' "$task/stat")"
  done | sort
}

# report NAME BEFORE AFTER WRK-LOG: per-request figures of every thread that ran.
report() {
  local requests
  requests=$(awk '/requests in/ {print $1}' "$4")
  echo "$1: $(awk '/Requests\/sec/ {print $2}' "$4") req/s, $(awk '/Non-2xx/ {print $NF}' "$4" | grep . || echo 0) non-2xx"
  join "$2" "$3" | awk -v n="$requests" -v hz="$ticks_per_second" '
    { cpu = ($9 - $5) * 1e6 / hz / n; voluntary = ($7 - $3) / n; involuntary = ($8 - $4) / n
      if (cpu < 0.05 && voluntary + involuntary < 0.005) next
      total += cpu; switches += voluntary + involuntary
      printf "  %-20s %6.1f us  %5.2f voluntary  %5.2f involuntary switches\n", $2, cpu, voluntary, involuntary }
    END { printf "  %-20s %6.1f us  %5.2f switches\n", "all threads", total, switches }'
}

wrk -t1 -c2 -d2s "$url/health" >/dev/null
# Enough proofs for 40,000 requests a second.
"$bin/haapi-bench" proofs --htu "$url/oauth/token" --count "$(( 40000 * seconds ))" --output "$work/proofs.txt" >/dev/null
snapshot >"$work/before-health"
wrk -t2 -c8 -d"${seconds}s" "$url/health" >"$work/health.log"
snapshot >"$work/after-health"
wrk -t2 -c8 -d"${seconds}s" -s "$root/scripts/bench/dpop-token.lua" "$url/oauth/token" -- \
  "$work/proofs.txt" "$authorization" "grant_type=client_credentials&scope=dcr" 2 >"$work/token.log"
snapshot >"$work/after-token"
report "/health" "$work/before-health" "$work/after-health" "$work/health.log"
report "token endpoint" "$work/after-health" "$work/after-token" "$work/token.log"
