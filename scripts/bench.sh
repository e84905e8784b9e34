#!/usr/bin/env bash
# The benchmark behind docs/BENCHMARKS.md: our dev server and glewlwyd 2.7.5 side by side under wrk, on loopback,
# release builds, one run. Prints one table (req/s, p50/p99, ratios, RSS) and writes the throughput-against-
# connections data and plot next to it.
#   scripts/bench.sh [seconds-per-phase]          (default 5; the sustained phase is 60 s, the key phases 10 s)
# Installs what it needs when missing: wrk and gnuplot from Debian's packages, glewlwyd through
# scripts/interop/glewlwyd-start.sh (unpacked into the work folder, no system install).
# Both servers keep their SQLite databases on tmpfs (/dev/shm), so neither pays for fsync.
set -euo pipefail
seconds="${1:-5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
. "$root/scripts/bench/serve-url.sh"
out="$root/.build-bench"
work="/dev/shm/swift-haapi-bench"
rm -rf "$work"
mkdir -p "$out" "$work"

source "$root/scripts/lib/setup.sh"
need_command wrk wrk
need_command gnuplot gnuplot-nox

echo "bench: release build through scripts/release.sh (the first one takes 10 minutes or more)"
bin="$(bash "$root/scripts/release.sh" "$root/.build-release" | tail -n 1)"
sync

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

echo "bench: starting glewlwyd 2.7.5"
glewlwyd_pid=$(bash "$root/scripts/interop/glewlwyd-start.sh" "$work/glewlwyd")
pids+=("$glewlwyd_pid")
read -r glewlwyd_id glewlwyd_secret < <(python3 "$root/scripts/bench/glewlwyd_client.py")

echo "bench: starting haapi serve"
"$bin/haapi" serve --port 0 --db "$work/haapi.sqlite" >"$work/serve.log" 2>&1 &
haapi_pid=$!
pids+=("$haapi_pid")
url="$(serve_url "$work/serve.log" 10)"
[ -n "$url" ] || { echo "bench: haapi serve did not start"; cat "$work/serve.log"; exit 1; }

rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }    # KiB
peak() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }   # KiB
threads_for() { [ "$1" -lt 2 ] && echo 1 || echo 2; }

results="$out/results.tsv"
printf "phase\tconnections\treq_per_s\tvalid_per_s\terrors_pct\tp50_ms\tp99_ms\n" >"$results"

# wrk_run NAME CONNECTIONS WRK-ARGUMENTS...: the arguments end with the URL, or with the URL, "--" and the
# script's arguments. Runs for $phase_seconds (default: the phase length). Appends one line to results.tsv and
# echoes "valid_per_s".
wrk_run() {
  local name="$1" connections="$2"
  shift 2
  local log="$out/wrk-$name-$connections.log"
  wrk -t"$(threads_for "$connections")" -c"$connections" -d"${phase_seconds:-$seconds}s" --latency "$@" >"$log" 2>&1 || true
  python3 "$root/scripts/bench/wrk_summary.py" "$name" "$connections" "$log" >>"$results"
  tail -n 1 "$results" | cut -f4
}

# token_run NAME CONNECTIONS URL HTU AUTHORIZATION BODY [KEYS] [RATE]: fresh proofs for this phase (enough for
# 40,000 requests a second, or 1.2 × RATE, with KEYS clients taking turns and, with RATE, iat spread over the
# phase at that rate), then wrk. The server keeps every proof it accepted for its iat window; the phases follow
# each other without a pause.
token_run() {
  local name="$1" connections="$2" target="$3" htu="$4" authorization="$5" body="$6" keys="${7:-1}" rate="${8:-}"
  local proofs="$work/proofs.txt" length="${phase_seconds:-$seconds}" count spread=()
  if [ -n "$rate" ]; then
    count=$(( rate * length * 12 / 10 + 1000 ))
    spread=(--per-second "$rate")
  else
    count=$(( 40000 * length ))
  fi
  "$bin/haapi-bench" proofs --htu "$htu" --count "$count" --keys "$keys" "${spread[@]}" --output "$proofs"
  wrk_run "$name" "$connections" -s "$root/scripts/bench/dpop-token.lua" "$target" -- \
    "$proofs" "$authorization" "$body" "$(threads_for "$connections")" >/dev/null
}

ours_auth="Basic $(printf 'haapi-dcr-main:dcr-main-secret-change-me' | base64 -w0)"
theirs_auth="Basic $(printf '%s:%s' "$glewlwyd_id" "$glewlwyd_secret" | base64 -w0)"
ours_token="$url/oauth/token"
theirs_token="http://127.0.0.1:4593/api/oidc/token"

echo "bench: warm-up"
wrk -t1 -c2 -d2s "$url/health" >/dev/null
token_run warmup 2 "$ours_token" "$ours_token" "$ours_auth" "grant_type=client_credentials&scope=dcr"
sed -i '/^warmup/d' "$results"
rss_start=$(rss "$haapi_pid")

echo "bench: /health, 8 connections"
health=$(wrk_run health 8 "$url/health")

for connections in 1 2 4 8 16; do
  echo "bench: DPoP token endpoint, $connections connections: ours, then glewlwyd"
  token_run ours-token "$connections" "$ours_token" "$ours_token" "$ours_auth" "grant_type=client_credentials&scope=dcr"
  token_run glewlwyd-token "$connections" "$theirs_token" "http://localhost:4593/api/oidc/token" "$theirs_auth" \
    "grant_type=client_credentials&scope=g_profile"
done

# The proofs of the later phases are dated at the best rate measured above (not the 8-connection rate alone):
# when a phase runs faster than its proofs' rate, the load generator runs out of proofs and starts over, and
# its own replays are refused. Dated a little faster than they are sent, proofs stay within the iat window.
rate8=$(awk -F'\t' '$1 == "ours-token" && $2 == 8 {print int($4)}' "$results")
rate8=$(( rate8 > 1000 ? rate8 : 1000 ))
proof_rate=$(awk -F'\t' '$1 == "ours-token" {rate = int($4) > rate ? int($4) : rate} END {print rate + 0}' "$results")
proof_rate=$(( proof_rate > rate8 ? proof_rate : rate8 ))
echo "bench: sustained load: 60 s at full rate, 8 connections (iat spread at $proof_rate/s)"
phase_seconds=60 token_run ours-sustained 8 "$ours_token" "$ours_token" "$ours_auth" \
  "grant_type=client_credentials&scope=dcr" 1 "$proof_rate"
echo "bench: 64 client keys in turn against one key, 10 s each, 8 connections"
# Proofs dated at the rate they are sent, as a client's are (made all at once, their iat would crowd into a few
# seconds, past the replay filter's budget for one second).
phase_seconds=10 token_run ours-1key 8 "$ours_token" "$ours_token" "$ours_auth" "grant_type=client_credentials&scope=dcr" 1 "$proof_rate"
phase_seconds=10 token_run ours-64keys 8 "$ours_token" "$ours_token" "$ours_auth" "grant_type=client_credentials&scope=dcr" 64 "$proof_rate"

echo "bench: memory over 50 000 DPoP token requests (ours)"
rss_before=$(rss "$haapi_pid")
"$bin/haapi-bench" proofs --htu "$ours_token" --count 50000 --output "$work/proofs.txt"
# Long enough for the 50 000 proofs at the 8-connection rate measured above, and a little more.
memory_seconds=$(( 50000 / (rate8 > 0 ? rate8 : 1000) + 2 ))
wrk -t2 -c8 -d"${memory_seconds}s" -s "$root/scripts/bench/dpop-token.lua" "$ours_token" -- \
  "$work/proofs.txt" "$ours_auth" "grant_type=client_credentials&scope=dcr" 2 >"$out/wrk-memory.log" 2>&1 || true
rss_after=$(rss "$haapi_pid")
memory_requests=$(python3 "$root/scripts/bench/wrk_summary.py" memory 8 "$out/wrk-memory.log" --valid-count)

echo "bench: /health again, 8 connections (it varies between runs; the ratios use the faster of the two)"
health_again=$(wrk_run health-again 8 "$url/health")

# Latency is measured at 1 connection, one request at a time: at 8, wrk keeps both cores busy and /health's p99
# is wrk's own queue (4.45 ms idle at 711a281), whatever the server does.
echo "bench: /health, 1 connection (latency): idle, then while \`yes\` keeps one core busy (the machine's floor)"
wrk_run health-latency 1 "$url/health" >/dev/null
yes >/dev/null &
hog_pid=$!
pids+=("$hog_pid")
wrk_run health-latency-core-busy 1 "$url/health" >/dev/null
kill "$hog_pid"

echo "bench: /health while 2 clients log in with passwords in a loop: 8 connections, then 1"
"$bin/haapi-bench" logins --url "$url" --clients 2 --seconds $(( 2 * seconds + 3 )) >"$out/logins.log" 2>&1 &
logins_pid=$!
sleep 1
health_loaded=$(wrk_run health-during-logins 8 "$url/health")
wrk_run health-latency-during-logins 1 "$url/health" >/dev/null
wait "$logins_pid" || { cat "$out/logins.log"; exit 1; }
logins=$(awk '/^logins\/s/ {print $2}' "$out/logins.log")

serve_peak=$(peak "$haapi_pid")
serve_anon=$(awk '/^RssAnon/ {print $2}' "/proc/$haapi_pid/status")   # heap and stacks
serve_file=$(awk '/^RssFile/ {print $2}' "/proc/$haapi_pid/status")   # pages of the binary and shared libraries
glewlwyd_rss=$(rss "$glewlwyd_pid")
glewlwyd_peak=$(peak "$glewlwyd_pid")
demo_peak=$(python3 - "$bin/haapi" <<'PY'
import resource, subprocess, sys
subprocess.run([sys.argv[1], "demo", "--non-interactive"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
)
demo_start=$(python3 - "$bin/haapi" <<'PY'
import os, subprocess, sys, time
# From exec to the demo's first menu ("Select Authentication Method"): server start, attestation, HAAPI token,
# authorize and the first step. Best of five.
best = None
for _ in range(5):
    start = time.monotonic()
    process = subprocess.Popen([sys.argv[1], "demo"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    buffer = b""
    while b"Select Authentication Method" not in buffer:
        chunk = os.read(process.stdout.fileno(), 4096)
        if not chunk:
            sys.exit("haapi demo ended before its first menu")
        buffer += chunk
    elapsed = time.monotonic() - start
    process.kill()
    process.wait()
    best = elapsed if best is None else min(best, elapsed)
print(f"{best:.3f}")
PY
)

python3 "$root/scripts/bench/report.py" "$results" \
  --health "$health" --health-again "$health_again" --health-loaded "$health_loaded" --logins "$logins" \
  --rss-start "$rss_start" --rss-before "$rss_before" --rss-after "$rss_after" --memory-requests "$memory_requests" \
  --serve-peak "$serve_peak" --serve-anon "$serve_anon" --serve-file "$serve_file" --demo-peak "$demo_peak" --glewlwyd-rss "$glewlwyd_rss" --glewlwyd-peak "$glewlwyd_peak" --demo-start "$demo_start" \
  --sdk "$("$bin/haapi-bench" sdk --steps 3000 | awk '/^ratio/ {print $2}')" \
  --plot "$out/throughput.png" --cores "$(nproc)" | tee "$out/table.md"
