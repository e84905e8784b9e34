#!/usr/bin/env bash
# Builds the DocC reference of every client module (Sources/<Module>/<Module>.docc) with swift-docc-plugin,
# failing on any DocC warning (an unresolved link, an undocumented parameter of a documented function), and
# checks the doc-comment coverage of their public API (scripts/doc-coverage.py): at least 80 % per module,
# and all of what the seeds (../shared/seeds) name.
#   scripts/docs.sh                 all client modules
#   scripts/docs.sh HaapiSdk ...    some of them
# The archives land in .build/plugins/Swift-DocC/outputs/<Module>.doccarchive.
set -uo pipefail
cd "$(dirname "$0")/.."
modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(HaapiModel HaapiDriver HaapiSdk HaapiUI Passkeys AuthHub)
status=0
for module in "${modules[@]}"; do
  log=".build/docc-$module.log"
  mkdir -p .build
  if swift package --disable-sandbox generate-documentation --target "$module" --warnings-as-errors >"$log" 2>&1; then
    echo "docs: $module built without warnings"
  else
    status=1
    echo "docs: $module FAILED; DocC said:"
    grep -E "error:|warning:" "$log" | grep -v "swift-distributed-tracing" | head -40
  fi
done
swift package dump-symbol-graph --minimum-access-level public >/dev/null 2>&1 || status=1
# Every module at 80 % or more, and every public symbol the seeds name documented.
python3 scripts/doc-coverage.py --min 80 --seeds ../shared/seeds || status=1
# The names the seeds spell (docs/seed-names.txt) are still public.
python3 scripts/seed-names.py docs/seed-names.txt || status=1
exit $status
