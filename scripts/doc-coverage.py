#!/usr/bin/env python3
"""Doc-comment coverage of the client modules' public API, from the compiler's symbol graphs.

    swift package dump-symbol-graph --minimum-access-level public
    python3 scripts/doc-coverage.py [--min PERCENT] [--seeds DIR] [--list MODULE]

Counts every public symbol a module declares (types, members, cases, functions; not symbols it only
inherits or gets from a protocol's default implementation) and whether it carries a doc comment of its own.
Exits 1 when a module is below --min. With --seeds, the symbols the product documents in DIR name (the
symbol's name and its parents' names all appear there) must all be documented.
"""
import glob, json, os, re, sys

MODULES = ["HaapiModel", "HaapiDriver", "HaapiSdk", "HaapiUI", "Passkeys", "AuthHub", "HaapiTestSupport"]


def symbol_graph_paths(module):
    """The module's symbol graph wherever `dump-symbol-graph` put it: .build/<triple>/symbolgraph for any
    architecture and platform (x86_64 or aarch64 Linux, arm64 macOS)."""
    found = glob.glob(os.path.join(".build", "*", "symbolgraph", f"{module}.symbols.json"))
    # Several triples (a build for another architecture): the newest dump only, so nothing counts twice.
    return sorted(found, key=os.path.getmtime)[-1:]


def symbols(module):
    for path in symbol_graph_paths(module):
        graph = json.load(open(path))
        inherited = {r["source"] for r in graph.get("relationships", [])
                     if r.get("kind") == "defaultImplementationOf" or "sourceOrigin" in r}
        for symbol in graph["symbols"]:
            # SPI (`@_spi(Tooling) public`) is the workbench's, not an app's API.
            if symbol["accessLevel"] not in ("public", "open") or symbol.get("spi"): continue
            ident = symbol["identifier"]["precise"]
            if ident in inherited: continue
            # Implicit members (synthesised inits, rawValue) have no location in our sources.
            if "location" not in symbol: continue
            yield symbol


def main():
    minimum = None
    listing = None
    args = sys.argv[1:]
    if "--min" in args: minimum = float(args[args.index("--min") + 1])
    if "--list" in args: listing = args[args.index("--list") + 1]
    seed_words = None
    if "--seeds" in args:
        text = " ".join(open(f).read() for f in glob.glob(os.path.join(args[args.index("--seeds") + 1], "*")))
        seed_words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    seed_total = seed_documented = 0
    failed = False
    total_all = documented_all = 0
    print(f"{'module':<12} {'public':>7} {'documented':>11} {'coverage':>9}")
    for module in MODULES:
        if not symbol_graph_paths(module):
            print(f"{module}: no symbol graph under .build/*/symbolgraph (run swift package dump-symbol-graph)")
            failed = True
            continue
        found = list(symbols(module))
        if not found:
            print(f"{module}: the symbol graph has no public symbols")
            failed = True
        documented = [s for s in found if s.get("docComment", {}).get("lines")]
        if seed_words is not None:
            named = [s for s in found if all(p.split("(")[0] in seed_words for p in s["pathComponents"])]
            seed_total += len(named)
            for s in named:
                if s.get("docComment", {}).get("lines"):
                    seed_documented += 1
                else:
                    failed = True
                    print("  undocumented seed API:", module + "/" + "/".join(s["pathComponents"]))
        total_all += len(found)
        documented_all += len(documented)
        coverage = 100.0 * len(documented) / len(found) if found else 100.0
        print(f"{module:<12} {len(found):>7} {len(documented):>11} {coverage:>8.1f}%")
        if minimum is not None and coverage < minimum: failed = True
        if listing == module:
            for s in found:
                if not s.get("docComment", {}).get("lines"):
                    loc = s["location"]
                    print("  undocumented:", "/".join(s["pathComponents"]), loc["uri"].split("/Sources/")[-1], loc["position"]["line"] + 1)
    coverage = 100.0 * documented_all / total_all if total_all else 100.0
    print(f"{'all':<12} {total_all:>7} {documented_all:>11} {coverage:>8.1f}%")
    if seed_words is not None:
        print(f"seed-named public API: {seed_documented} of {seed_total} documented")
    sys.exit(1 if failed else 0)


main()
