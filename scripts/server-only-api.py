#!/usr/bin/env python3
"""Fails when a client product exports a symbol that only the dev server uses.

The client products (HaapiModel, HaapiDriver, HaapiSdk, HaapiUI, Passkeys, AuthHub) are what an app links.
A public, SPI or package symbol there that nothing but Workbench/Sources/HaapiServer refers to is a server seam
in the app's API (a parse hook, a header cache's entry point, the hub's decryptor): it belongs in the server.

Reads the compiler's symbol graphs (`swift package dump-symbol-graph --minimum-access-level package
--include-spi-symbols`, as scripts/docs.sh makes them) and looks for each exported name, as a whole word, in the
repository's Swift sources (the SDK's, the integrations' and the workbench's), examples, tests and docs. A name the server uses and nothing else outside its declaring file
uses is reported. Names used elsewhere pass even if the use is unrelated (a common member name): the
check can miss a seam with a common name, never flag a symbol an app or another module uses.

    python3 scripts/server-only-api.py              the repository (after dump-symbol-graph)
    python3 scripts/server-only-api.py --self-test  the rule on a made-up repository: must flag its seams
"""
import glob, json, os, re, sys

CLIENT_MODULES = ["HaapiModel", "HaapiDriver", "HaapiSdk", "HaapiUI", "Passkeys", "AuthHub"]
EXPORTED = {"public", "open", "package"}
SERVER = "Workbench/Sources/HaapiServer/"
# Members the language calls for a conformance (`for … in`, hashing, printing, coding), never by name, and
# enum cases (an error's cases are what every caller switches over): not seams, whoever names them.
IMPLICIT = {"makeIterator", "next", "hash", "description", "debugDescription", "encode", "underestimatedCount",
            # String interpolation: the compiler calls these for every literal of an ExpressibleByStringInterpolation
            # type (the SDK's LogMessage), and the dev server's HTML has its own of the same names.
            "Interpolation", "appendLiteral", "appendInterpolation"}
SKIPPED_KINDS = {"swift.enum.case"}


def graph_files(module):
    found = glob.glob(os.path.join(".build", "*", "symbolgraph", f"{module}.symbols.json"))
    if not found:
        return []
    folder = os.path.dirname(sorted(found, key=os.path.getmtime)[-1])
    return [os.path.join(folder, f"{module}.symbols.json")]


def texts():
    """Every Swift file, DocC article and doc page, by path (relative to the repository)."""
    patterns = ["Sources/**/*.swift", "Sources/**/*.md", "Tests/**/*.swift", "Examples/**/*.swift",
                "Integrations/Sources/**/*.swift", "Workbench/Sources/**/*.swift", "Workbench/Tests/**/*.swift",
                "Workbench/Fuzz/**/*.swift", "docs/*.md", "docs/seed-names.txt", "README.md"]
    files = {}
    for pattern in patterns:
        for path in glob.glob(pattern, recursive=True):
            with open(path, encoding="utf-8", errors="replace") as handle:
                files[path] = handle.read()
    return files


def main():
    return check(texts(), {module: graph_files(module) for module in CLIENT_MODULES})


def check(files, graphs):
    server = {path: text for path, text in files.items() if path.startswith(SERVER)}
    others = {path: text for path, text in files.items() if not path.startswith(SERVER)}
    # A test may use a package or SPI symbol of any module, which an app does not: for those, tests do not count
    # (the seed samples, written as an app writes its code, do).
    apps_can_see = {
        path: text for path, text in others.items()
        if not path.startswith(("Tests/", "Workbench/Tests/")) or path.startswith("Tests/SeedSamples")
    }
    flagged, checked = [], 0
    for module in CLIENT_MODULES:
        paths = graphs.get(module, [])
        if not paths:
            print(f"server-only API: no symbol graph for {module} (run swift package dump-symbol-graph)")
            return 1
        seen = set()
        for path in paths:
            for symbol in json.load(open(path))["symbols"]:
                kind = symbol["kind"]["identifier"]
                if symbol["accessLevel"] not in EXPORTED or kind.endswith("extension") or kind in SKIPPED_KINDS:
                    continue
                name = symbol["pathComponents"][-1].split("(")[0]
                if name in IMPLICIT:
                    continue
                declared = symbol.get("location", {}).get("uri", "").split("file://")[-1].split(os.getcwd() + "/")[-1]
                key = (tuple(symbol["pathComponents"]), declared)
                # No location: a member inherited from a standard protocol (forEach, union, …), not ours.
                if not declared or len(name) < 3 or key in seen or not re.match(r"^[A-Za-z_]\w*$", name):
                    continue
                seen.add(key)
                checked += 1
                word = re.compile(r"\b" + re.escape(name) + r"\b")
                if not any(word.search(text) for text in server.values()):
                    continue
                internal_use = symbol["accessLevel"] == "package" or symbol.get("spi", False)
                users = apps_can_see if internal_use else others
                elsewhere = any(word.search(text) for path2, text in users.items() if path2 != declared)
                if not elsewhere:
                    flagged.append(f"{module}: {'.'.join(symbol['pathComponents'])} ({declared})")
    for line in flagged:
        print(f"server-only API: {line} is exported by a client product but only the dev server uses it")
    print(f"server-only API: {checked} exported symbols checked, {len(flagged)} used by the server alone")
    return 1 if flagged else 0


def self_test():
    """A made-up AuthHub with a package decryptor, a public parse hook and an SPI hook (the workbench's tests call
    it too) that only the server calls, a public type an app uses, and a package helper the module's tests use:
    the first three must be flagged, the others not."""
    import tempfile

    def symbol(path, access, declared, kind="swift.method", spi=False):
        made = {"pathComponents": path, "accessLevel": access, "kind": {"identifier": kind},
                "location": {"uri": "file://" + os.path.join(os.getcwd(), declared)}}
        if spi:
            made["spi"] = True
        return made

    files = {
        "Sources/AuthHub/Decryptor.swift": "package actor FieldDecryptor {}\npublic func parseHook() {}",
        "Sources/AuthHub/Client.swift": "public struct Encryptor { package func sealedHelper() {} }",
        "Sources/AuthHub/Tooling.swift": "@_spi(Tooling) public func toolingHook() {}",
        "Workbench/Sources/HaapiServer/Hub.swift":
            "let d = FieldDecryptor(); parseHook(); let e = Encryptor(); toolingHook()",
        "Tests/AuthHubTests/DecryptorTests.swift": "_ = FieldDecryptor(); Encryptor().sealedHelper()",
        "Workbench/Tests/HubTests/HookTests.swift": "toolingHook()",
        "Examples/App/main.swift": "let encryptor = Encryptor()",
    }
    graph = {"symbols": [
        symbol(["FieldDecryptor"], "package", "Sources/AuthHub/Decryptor.swift", "swift.class"),
        symbol(["parseHook()"], "public", "Sources/AuthHub/Decryptor.swift", "swift.func"),
        symbol(["Encryptor"], "public", "Sources/AuthHub/Client.swift", "swift.struct"),
        symbol(["Encryptor", "sealedHelper()"], "package", "Sources/AuthHub/Client.swift"),
        symbol(["toolingHook()"], "public", "Sources/AuthHub/Tooling.swift", "swift.func", spi=True),
    ]}
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "AuthHub.symbols.json")
        json.dump(graph, open(path, "w"))
        graphs = {module: [path] if module == "AuthHub" else [os.path.join(folder, "empty.json")]
                  for module in CLIENT_MODULES}
        json.dump({"symbols": []}, open(os.path.join(folder, "empty.json"), "w"))
        import io, contextlib
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            status = check(files, graphs)
    text = output.getvalue()
    expected = ["AuthHub: FieldDecryptor ", "AuthHub: parseHook() ", "AuthHub: toolingHook() "]
    unexpected = ["Encryptor (", "sealedHelper"]
    ok = status == 1 and all(e in text for e in expected) and not any(u in text for u in unexpected)
    print("server-only API self-test: " + ("passed" if ok else "FAILED:\n" + text))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(self_test() if "--self-test" in sys.argv else main())
