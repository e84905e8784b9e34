#!/usr/bin/env python3
"""Checks that every public name the seeds spell (docs/seed-names.txt) is still in the public API, from the
compiler's symbol graphs (`swift package dump-symbol-graph --minimum-access-level public`, as scripts/docs.sh
makes them); an `apple-only` line is looked for in the source, a `not provided:` line must give its reason. Exits 1 and names each missing one, so a rename that breaks code written against the seeds fails CI.

    python3 scripts/seed-names.py [docs/seed-names.txt]
"""
import glob, json, os, re, sys


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
            if symbol["accessLevel"] in ("public", "open") and not symbol.get("spi"):
                paths.add(tuple(component.split("(")[0] for component in symbol["pathComponents"]))
    return paths


def declared_in_source(module, name):
    """Apple-only code is not in Linux's symbol graphs: its public declaration is looked for in the source."""
    last = name.split("/")[-1]
    kinds = "class|struct|enum|protocol|actor|typealias|func|var|let"
    pattern = re.compile(r"public\s+(static\s+|final\s+)*(" + kinds + r")\s+" + re.escape(last) + r"\b")
    for path in glob.glob(os.path.join("Sources", module, "**", "*.swift"), recursive=True):
        if pattern.search(open(path, encoding="utf-8").read()):
            return True
    return False


def main():
    listing = sys.argv[1] if len(sys.argv) > 1 else "docs/seed-names.txt"
    cache, missing, checked, absent, bad = {}, [], 0, 0, []
    for line in open(listing):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if " not provided: " in line:
            # Deliberately absent: the reason must be a sentence, not a placeholder.
            reason = line.split(" not provided: ", 1)[1]
            if len(reason.split()) < 5 or not reason.endswith("."):
                bad.append(line)
            absent += 1
            continue
        if line.endswith(" implied"):
            # An associated type the compiler infers: the graphs list its type, not the alias.
            line = line[: -len(" implied")].rsplit("/", 1)[0]
        elif line.endswith(" apple-only"):
            module, name = line[: -len(" apple-only")].split("/", 1)
            checked += 1
            if not declared_in_source(module, name):
                missing.append(line)
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
    for line in bad:
        print(f"seed names: '{line}' needs its reason as a sentence")
    print(f"seed names: {checked - len(missing)} of {checked} present; {absent} not provided, each with its reason")
    sys.exit(1 if missing or bad else 0)


main()
