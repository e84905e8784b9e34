#!/usr/bin/env bash
# Builds the libFuzzer target for the HAAPI decoder and runs it for a bounded time.
#   scripts/fuzz.sh [seconds]      (default 60)
# The target is HaapiModel's sources plus Fuzz/HaapiDecoderFuzzer, built with -sanitize=fuzzer,address.
# Seeds: Fuzz/seeds (ours) and, when present, the vendor fixtures in ../shared/haapi-fixtures.
# Any crash leaves its input in fuzz-artifacts/ and fails the script.
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.build-fuzz"
mkdir -p "$work/corpus" "$root/fuzz-artifacts"

sources=$(find "$root/Sources/HaapiModel" "$root/Fuzz/HaapiDecoderFuzzer" -name '*.swift' | sort)
binary="$work/haapi-decoder-fuzzer"
echo "fuzz: building $binary"
# The ASan runtime makes gold print a page of harmless "cannot export local symbol" warnings; keep them in a log.
# shellcheck disable=SC2086
if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name HaapiModel -swift-version 6 $sources -o "$binary" \
    >"$work/build.log" 2>&1; then
  grep -v "Cannot export local symbol" "$work/build.log" >&2
  exit 1
fi

cp "$root"/Fuzz/seeds/*.json "$work/corpus/" 2>/dev/null || true
fixtures="$root/../shared/haapi-fixtures/ios-haapi-demo-app"
if [ -d "$fixtures" ]; then cp "$fixtures"/*.json "$work/corpus/"; fi

echo "fuzz: running for ${seconds}s"
"$binary" "$work/corpus" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="$root/fuzz-artifacts/" -print_final_stats=1 2>&1 | tee "$work/last-run.log" | grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY)" || true
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
  echo "fuzz: FAILED (exit $status); see $work/last-run.log and fuzz-artifacts/" >&2
  tail -40 "$work/last-run.log" >&2
  exit 1
fi
runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$work/last-run.log" | grep -Eo '[0-9]+$' || echo 0)
echo "fuzz: $runs inputs in ${seconds}s, no crash"
