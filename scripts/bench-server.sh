#!/usr/bin/env bash
# Server benchmark: `haapi serve` in one process, `haapi-bench server` as a separate load process,
# both on 127.0.0.1, release builds. Prints trivial-endpoint, token-endpoint and complete-login rates
# from the same run, and the ratios.
#   scripts/bench-server.sh [seconds-per-phase] [concurrency]
set -euo pipefail
seconds="${1:-10}"
concurrency="${2:-8}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# A scratch folder of its own, so a release build does not wait on (or disturb) the debug build.
scratch="$root/.build-release"
echo "bench: building release binaries in $scratch (the first time takes several minutes)"
swift build -c release --scratch-path "$scratch" --product haapi >/dev/null
swift build -c release --scratch-path "$scratch" --product haapi-bench >/dev/null
bin="$(swift build -c release --scratch-path "$scratch" --show-bin-path)"

log="$(mktemp)"
"$bin/haapi" serve --port 0 >"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  url=$(grep -Eo 'http://127\.0\.0\.1:[0-9]+' "$log" | head -n 1 || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "${url:-}" ] || { echo "bench: the server did not start"; cat "$log"; exit 1; }
echo "bench: server at $url (pid $server); $(nproc) cores"
"$bin/haapi-bench" server --url "$url" --seconds "$seconds" --concurrency "$concurrency"
