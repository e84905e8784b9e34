#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs them within a shared time budget.
#   scripts/fuzz.sh [total-seconds] [harness ...]     (default 60 seconds of wall clock, all harnesses)
#   FUZZ_SECONDS_EACH=600 scripts/fuzz.sh 0 CBORFuzzer   (a fixed time per harness instead)
#
# Harnesses (Workbench/Fuzz/<name>, one parser of outside input each):
#   HaapiDecoderFuzzer         HAAPI representations and problems (HaapiModel)
#   CBORFuzzer                 CBOR, attestation objects, authenticator data, COSE keys (Passkeys)
#   DPoPProofFuzzer            compact JWS, DPoP proofs as the server parses them, htu normalisation,
#                              form bodies (bytes), Basic credentials, the sign-in page's cookie,
#                              the CSP sources made of redirect URIs, and App Attest responses,
#                              attestation objects and assertions
#   AuthHubResponseFuzzer      Authentication Hub responses as the client reads them
#   ServerConfigurationFuzzer  the dev server's configuration loader
#
# HAAPI_FUZZ=1 makes Workbench/Package.swift add the harnesses and instrument the server, and the SDK's
# Package.swift instrument its parsers (coverage + ASan). They are built in a scratch path of their own
# (.build-fuzz; see FUZZ_SCRATCH below), so the instrumented modules never replace the test build's.
# Seeds: Workbench/Fuzz/seeds/<name>, plus the vendor fixtures in ../shared/haapi-fixtures for the HAAPI decoder.
# Any crash leaves its input in fuzz-artifacts/ and fails the script.
set -euo pipefail
total="${1:-60}"
shift || true
root="$(cd "$(dirname "$0")/.." && pwd)"
all=(HaapiDecoderFuzzer CBORFuzzer DPoPProofFuzzer DPoPVerifierFuzzer AuthHubResponseFuzzer ServerConfigurationFuzzer)
if [ "$#" -gt 0 ]; then harnesses=("$@"); else harnesses=("${all[@]}"); fi
work="$root/.build-fuzz"
# Where the instrumented harnesses are built: .build-fuzz, so a developer's test build in Workbench/.build is
# left as it is. .ci/run, which needs that build for nothing after the fuzzers, passes
# FUZZ_SCRATCH=Workbench/.build and saves a second build of every dependency (docs/ARCHITECTURE.md, "CI").
scratch="$root/${FUZZ_SCRATCH:-.build-fuzz}"
mkdir -p "$work" "$root/fuzz-artifacts"
cd "$root"

for harness in "${harnesses[@]}"; do
  echo "fuzz: building $harness"
  # lld prints a page of harmless "cannot export local symbol" warnings for the ASan runtime: keep them in a log.
  if ! HAAPI_FUZZ=1 swift build --package-path "$root/Workbench" --scratch-path "$scratch" --product "$harness" >"$work/build-$harness.log" 2>&1; then
    grep -v "Cannot export local symbol" "$work/build-$harness.log" | tail -40 >&2
    exit 1
  fi
done
bin="$(HAAPI_FUZZ=1 swift build --package-path "$root/Workbench" --scratch-path "$scratch" --show-bin-path)"

# The harnesses run side by side, one a core (libFuzzer's driver is one thread), so the wall-clock budget buys
# each harness `total × cores ÷ harnesses` seconds.
cores="${FUZZ_JOBS:-$(nproc)}"
each="${FUZZ_SECONDS_EACH:-$(( total * cores / ${#harnesses[@]} ))}"
[ "$each" -ge 1 ] || each=1

# fuzz_one HARNESS: runs it for $each seconds and prints one line; its exit status is the harness's verdict.
fuzz_one() {
  local harness="$1" corpus="$work/corpus/$1" log="$work/last-run-$1.log" code runs coverage
  mkdir -p "$corpus"
  cp "$root/Workbench/Fuzz/seeds/$harness"/* "$corpus/" 2>/dev/null || true
  local fixtures="$root/../shared/haapi-fixtures/ios-haapi-demo-app"
  if [ "$harness" = HaapiDecoderFuzzer ] && [ -d "$fixtures" ]; then cp "$fixtures"/*.json "$corpus/"; fi
  set +e
  "$bin/$harness" "$corpus" -max_total_time="$each" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$root/fuzz-artifacts/$harness-" -print_final_stats=1 >"$log" 2>&1
  code=$?
  set -e
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo 0)
  coverage=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo 0)
  if [ "$code" -ne 0 ]; then
    {
      echo "fuzz: $harness FAILED (exit $code); see $log and fuzz-artifacts/"
      grep -E "==[0-9]+==ERROR|SUMMARY|Fatal error|fuzzFailure|precondition" "$log" | head -10
      tail -30 "$log"
    } >&2
    return 1
  fi
  echo "fuzz: $harness: $runs inputs in ${each}s, coverage $coverage edges, no crash"
}

echo "fuzz: ${#harnesses[@]} harnesses, ${each}s each, $cores at a time"
status=0
running=()
for harness in "${harnesses[@]}"; do
  if [ "${#running[@]}" -ge "$cores" ]; then
    wait "${running[0]}" || status=1
    running=("${running[@]:1}")
  fi
  fuzz_one "$harness" &
  running+=($!)
done
for pid in "${running[@]}"; do wait "$pid" || status=1; done
exit "$status"
