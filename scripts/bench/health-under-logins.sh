#!/usr/bin/env bash
# The login-load phases of scripts/bench.sh alone, against the release build: `/health` idle, then while 2 clients
# log in with passwords in a loop (haapi-bench logins), each time at 8 connections (throughput: wrk keeps both
# cores busy, so its p99 is wrk's own queue) and at 1 connection (latency: one request at a time, so a request
# that waits shows as a waiting request), plus 1 connection while `yes` keeps one core busy (the machine's floor).
# Prints the five phases (valid req/s, p50, p99) and the ratio. For a
# change to the server's threading, without the 10 minutes of the whole bench.
#   scripts/bench/health-under-logins.sh [seconds]      (default 5, as in scripts/bench.sh)
set -euo pipefail
seconds="${1:-5}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
. "$root/scripts/bench/serve-url.sh"
source "$root/scripts/lib/setup.sh"
need_command wrk wrk
bin="$(bash "$root/scripts/release.sh" "$root/.build-release" | tail -n 1)"
work="/dev/shm/swift-haapi-health-logins"
rm -rf "$work"
mkdir -p "$work"
"$bin/haapi" serve --port 0 --db "$work/haapi.sqlite" >"$work/serve.log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
url="$(serve_url "$work/serve.log" 10)"
[ -n "$url" ] || { cat "$work/serve.log"; exit 1; }
wrk -t1 -c2 -d2s "$url/health" >/dev/null
wrk -t2 -c8 -d"${seconds}s" --latency "$url/health" >"$work/idle.log"
wrk -t1 -c1 -d"${seconds}s" --latency "$url/health" >"$work/idle-1.log"
# The machine's own floor: one core kept busy by a process that is not the server (as the hashing thread keeps
# one busy during logins), so a request that waits for a core shows here without the server doing anything.
yes >/dev/null &
hog=$!
wrk -t1 -c1 -d"${seconds}s" --latency "$url/health" >"$work/busy-core-1.log"
kill "$hog"
"$bin/haapi-bench" logins --url "$url" --clients 2 --seconds $(( 2 * seconds + 3 )) >"$work/logins.log" 2>&1 &
logins=$!
sleep 1
wrk -t2 -c8 -d"${seconds}s" --latency "$url/health" >"$work/loaded.log"
wrk -t1 -c1 -d"${seconds}s" --latency "$url/health" >"$work/loaded-1.log"
wait "$logins"
idle=$(python3 "$root/scripts/bench/wrk_summary.py" idle 8 "$work/idle.log")
loaded=$(python3 "$root/scripts/bench/wrk_summary.py" during-logins 8 "$work/loaded.log")
printf 'phase\tconnections\treq_per_s\tvalid_per_s\terrors_pct\tp50_ms\tp99_ms\n%s\n%s\n' "$idle" "$loaded"
python3 "$root/scripts/bench/wrk_summary.py" idle 1 "$work/idle-1.log"
python3 "$root/scripts/bench/wrk_summary.py" one-core-busy 1 "$work/busy-core-1.log"
python3 "$root/scripts/bench/wrk_summary.py" during-logins 1 "$work/loaded-1.log"
awk '/^logins\/s/ {print "logins/s: " $2}' "$work/logins.log"
python3 - "$idle" "$loaded" <<'PY'
import sys
idle, loaded = (float(line.split("\t")[3]) for line in sys.argv[1:3])
print(f"/health while 2 clients log in ÷ idle: {loaded / idle:.2f}×")
PY
