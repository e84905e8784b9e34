# Sourced by scripts/bench.sh, scripts/release.sh and the scripts of scripts/bench.
# serve_url LOG SECONDS: prints the http://localhost:PORT (or 127.0.0.1) that `haapi serve` wrote to LOG, waiting up to
# SECONDS for it; prints nothing if it did not appear.
serve_url() {
  local log="$1" tries=$(( $2 * 10 )) url=""
  for _ in $(seq 1 "$tries"); do
    url=$(grep -Eo 'http://(127\.0\.0\.1|localhost):[0-9]+' "$log" | head -n 1 || true)
    [ -n "$url" ] && break
    sleep 0.1
  done
  printf '%s' "$url"
}
