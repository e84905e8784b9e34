# Sourced by scripts/bench.sh, per-request.sh and ceiling.sh.
# Our server keeps every DPoP proof it accepted until the proof's iat window has passed (60 s, plus a second)
# and holds 200,000 of them (DPoPReplayCache.proofCapacity); when full it refuses new proofs, as designed.
# proof_supply SECONDS: how many proofs a token phase of SECONDS gets: enough for 40,000 requests/s, but never
# more than the cache keeps at once (a fast machine answers more than 20,000 token requests a second).
proof_supply() {
  local wanted=$(( 40000 * $1 )) capacity=190000
  echo $(( wanted < capacity ? wanted : capacity ))
}
