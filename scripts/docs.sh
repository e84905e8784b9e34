#!/usr/bin/env bash
# Builds the DocC reference of every client module (Sources/<Module>/<Module>.docc) with the toolchain's `docc`,
# failing on any DocC warning (an unresolved link, an undocumented parameter of a documented function), and
# checks the doc-comment coverage of their public API (scripts/doc-coverage.py): at least 80 % per module,
# and all of what the seeds (../shared/seeds) name; that the seeds' names are public (scripts/seed-names.py);
# and that no client product exports a symbol only the dev server uses (scripts/server-only-api.py).
#   scripts/docs.sh                 all client modules
#   scripts/docs.sh HaapiSdk ...    some of them
# The archives land in .build/docs/<Module>.doccarchive. The SDK has no dependency for this (swift-docc-plugin
# would be one more package every app checks out): the compiler's symbol graphs and `docc convert` do what the
# plugin does.
set -uo pipefail
cd "$(dirname "$0")/.."
modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(HaapiModel HaapiDriver HaapiSdk HaapiUI Passkeys AuthHub HaapiTestSupport)
status=0
mkdir -p .build/docs
log=".build/docs/docc.log"
: >"$log"

# The newest symbol-graph folder of this build (.build/<triple>/symbolgraph).
graph_folder() {
  dirname "$(ls -t .build/*/symbolgraph/HaapiModel.symbols.json 2>/dev/null | head -n 1)"
}

# The public API, as an app sees it (no SPI): what the reference documents.
if ! swift package dump-symbol-graph --minimum-access-level public >>"$log" 2>&1; then
  echo "docs: FAILED: swift package dump-symbol-graph"
  tail -20 "$log"
  exit 1
fi
graphs="$(graph_folder)"
failed=()
for module in "${modules[@]}"; do
  own=".build/docs/graphs/$module"
  rm -rf "$own" ".build/docs/$module.doccarchive"
  mkdir -p "$own"
  cp "$graphs/$module.symbols.json" "$own/"
  cp "$graphs/$module"@*.symbols.json "$own/" 2>/dev/null || true
  catalog=()
  [ -d "Sources/$module/$module.docc" ] && catalog=("Sources/$module/$module.docc")
  if ! docc convert "${catalog[@]}" --additional-symbol-graph-dir "$own" --fallback-display-name "$module" \
    --fallback-bundle-identifier "swift-haapi.$module" --output-path ".build/docs/$module.doccarchive" \
    --warnings-as-errors >>"$log" 2>&1; then
    failed+=("$module")
  fi
done
if [ ${#failed[@]} -eq 0 ]; then
  echo "docs: ${modules[*]} built without warnings (.build/docs/<Module>.doccarchive)"
else
  status=1
  echo "docs: FAILED for ${failed[*]}; DocC said:"
  grep -E "error:|warning:" "$log" | head -40
fi

# Package-level and SPI symbols too: the server-only check looks at what any module of the repository can call.
swift package dump-symbol-graph --minimum-access-level package --include-spi-symbols >>"$log" 2>&1 || status=1
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
