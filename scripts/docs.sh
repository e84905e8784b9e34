#!/usr/bin/env bash
# Builds the DocC reference of every client module (Sources/<Module>/<Module>.docc) with swift-docc-plugin,
# failing on any DocC warning (an unresolved link, an undocumented parameter of a documented function), and
# checks the doc-comment coverage of their public API (scripts/doc-coverage.py): at least 80 % per module,
# and all of what the seeds (../shared/seeds) name; that the seeds' names are public (scripts/seed-names.py);
# and that no client product exports a symbol only the dev server uses (scripts/server-only-api.py).
#   scripts/docs.sh                 all client modules
#   scripts/docs.sh HaapiSdk ...    some of them
# The archives land in .build/plugins/Swift-DocC/outputs/<Module>.doccarchive.
set -uo pipefail
cd "$(dirname "$0")/.."
modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(HaapiModel HaapiDriver HaapiSdk HaapiUI Passkeys AuthHub HaapiTestSupport)
status=0
mkdir -p .build
log=".build/docc.log"
# One DocC call for all the modules: one build and one symbol-graph pass instead of one per module.
targets=()
for module in "${modules[@]}"; do targets+=(--target "$module"); done
if swift package --disable-sandbox generate-documentation "${targets[@]}" --warnings-as-errors >"$log" 2>&1; then
  echo "docs: ${modules[*]} built without warnings"
else
  status=1
  echo "docs: FAILED; DocC said:"
  grep -E "error:|warning:" "$log" | grep -v "swift-distributed-tracing" | head -40
fi
# Package-level symbols too: the server-only check below looks at what any module of the package can call.
swift package dump-symbol-graph --minimum-access-level package >/dev/null 2>&1 || status=1
# No client product exports what only the dev server uses (its rule tried on a made-up tree first).
python3 scripts/server-only-api.py --self-test || status=1
python3 scripts/server-only-api.py || status=1
# Every module at 80 % or more, and every public symbol the seeds name documented. The seeds are product
# documents beside the checkout (../shared/seeds), not in the repository: where they are absent (a GitHub
# checkout) that part cannot run, and the script says so rather than passing on nothing.
if [ -d ../shared/seeds ] && [ -n "$(ls -A ../shared/seeds 2>/dev/null)" ]; then
  python3 scripts/doc-coverage.py --min 80 --seeds ../shared/seeds || status=1
else
  echo "docs: SKIPPED the seeds' names: ../shared/seeds is absent here; only the 80 % coverage is checked"
  python3 scripts/doc-coverage.py --min 80 || status=1
fi
# The names the seeds spell (docs/seed-names.txt) are still public.
python3 scripts/seed-names.py docs/seed-names.txt || status=1
exit $status
