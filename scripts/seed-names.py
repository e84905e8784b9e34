#!/usr/bin/env python3
"""Checks that every public name the seeds spell (docs/seed-names.txt) is still in the public API, from the
compiler's symbol graphs (`swift package dump-symbol-graph --minimum-access-level public`, as scripts/docs.sh
makes them). Exits 1 and names each missing one, so a rename that breaks code written against the seeds fails CI.

    python3 scripts/seed-names.py [docs/seed-names.txt]
"""
import glob, json, os, sys


def graphs(module):
    """The module's own graph and the graphs of its extensions to other modules, newest build only."""
    found = glob.glob(os.path.join(".build", "*", "symbolgraph", f"{module}.symbols.json"))
    if not found:
        return []
    folder = os.path.dirname(sorted(found, key=os.path.getmtime)[-1])
    return [os.path.join(folder, f"{module}.symbols.json")] + glob.glob(os.path.join(folder, f"{module}@*.symbols.json"))


def public_paths(module):
    paths = set()
    for path in graphs(module):
        for symbol in json.load(open(path))["symbols"]:
            if symbol["accessLevel"] in ("public", "open"):
                paths.add(tuple(component.split("(")[0] for component in symbol["pathComponents"]))
    return paths


def main():
    listing = sys.argv[1] if len(sys.argv) > 1 else "docs/seed-names.txt"
    cache, missing, checked = {}, [], 0
    for line in open(listing):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        module, *path = line.split("/")
        if module not in cache:
            cache[module] = public_paths(module)
            if not cache[module]:
                print(f"seed names: no symbol graph for {module} (run swift package dump-symbol-graph)")
                sys.exit(1)
        checked += 1
        if tuple(path) not in cache[module]:
            missing.append(line)
    for name in missing:
        print(f"seed names: {name} is missing from the public API")
    print(f"seed names: {checked - len(missing)} of {checked} present")
    sys.exit(1 if missing else 0)


main()
