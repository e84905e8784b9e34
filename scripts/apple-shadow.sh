#!/usr/bin/env bash
# The Apple-only adapters compiled on Linux with Swift 6's full checks (-emit-sil runs region-based isolation,
# which -typecheck does not), against stand-in declarations of the Apple frameworks they call
# (scripts/apple-shadow/*.swift, written from Apple's documentation; CryptoKit's Secure Enclave keys not
# Sendable, as in Xcode 16.0), with the real sources of the module each
# adapter lives in. It runs two variants of what an SDK may declare: an older one (delegate protocols not
# isolated, completion handlers not @Sendable) and a newer one (main-actor protocols, @Sendable handlers).
#
# What it catches: concurrency mistakes in our adapters (a non-Sendable ASAuthorization object sent into a
# main-actor task, an isolated witness that only compiles with one SDK), wrong argument labels against the
# documented API. What it cannot: anything about Apple's real headers. It is not a build with Apple's SDK;
# .github/workflows/apple.yml is, and nothing here is called verified because this passes.
#
# Needs `swift build` first: the dependencies' modules, and the flags SwiftPM compiles each module with.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f .build/debug/description.json ] || { echo "apple-shadow: run swift build first" >&2; exit 2; }
# The flags SwiftPM compiles MODULE with (its C module maps, defines, package name, language mode), from the
# build description, minus those that write build products; one per line.
module_flags() {
    python3 - "$1" <<'PY'
import json, sys
commands = json.load(open(".build/debug/description.json"))["swiftCommands"]
command = next(c for c in commands.values() if c.get("moduleName") == sys.argv[1])
skip_one = {"-parseable-output", "-incremental", "-enable-batch-mode", "-serialize-diagnostics", "-enable-testing", "-parse-as-library"}
skip_two = {"-index-store-path", "-j"}
arguments = command["otherArguments"]
i = 0
while i < len(arguments):
    argument = arguments[i]
    if argument in skip_two:
        i += 2
        continue
    if argument not in skip_one and not argument.startswith("-j"):
        print(argument)
    i += 1
print("-I")
print(command["importPath"])
PY
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# An adapter without its outer platform condition and without the imports the stand-ins replace.
unwrap() {
    awk 'NR == 1 && /^#if / { next } { lines[++n] = $0 } END {
        while (n > 0 && lines[n] == "") n--
        if (lines[n] ~ /^#endif/) n--
        for (i = 1; i <= n; i++) print lines[i] }' "$1" |
        grep -v -E '^import (AuthenticationServices|UIKit|DeviceCheck|Security)$'
}

# The first branch of an adapter written as `#if <Apple> … #else <elsewhere> … #endif`.
first_branch() {
    awk '/^#if / && !started { started = 1; next } /^#else/ && started == 1 { exit } started { print }' "$1" |
        grep -v -E '^import (CryptoKit)$'
}

# stand_ins FILE ISOLATED SENDABLE: the stand-in file with the variant's markers filled in.
stand_ins() {
    sed -e "s/^ISOLATED /$2 /" -e "s/= SENDABLE (/= $3 (/" "scripts/apple-shadow/$1"
}

# check NAME MODULE VARIANT: compiles a module's sources (minus excluded ones) with unwrapped adapters.
status=0
check() {
    local name="$1" module="$2" isolated="$3" sendable="$4"
    shift 4
    local dir="$work/$name-${isolated:-plain}"
    mkdir -p "$dir"
    local files=()
    for stand_in in AuthenticationServices.swift DeviceCheck.swift Security.swift CryptoKit.swift; do
        stand_ins "$stand_in" "$isolated" "$sendable" > "$dir/stand-in-$stand_in"
        files+=("$dir/stand-in-$stand_in")
    done
    local adapter
    for adapter in "$@"; do
        case "$adapter" in
            first-branch:*)
                adapter="${adapter#first-branch:}"
                { echo "import Crypto"; echo "import Foundation"; first_branch "$adapter"; } > "$dir/$(basename "$adapter")"
                files+=("$dir/$(basename "$adapter")")
                ;;
            adapter:*)
                adapter="${adapter#adapter:}"
                { echo "import Foundation"; unwrap "$adapter"; } > "$dir/$(basename "$adapter")"
                files+=("$dir/$(basename "$adapter")")
                ;;
            *) files+=("$adapter") ;;
        esac
    done
    local flags=()
    mapfile -t flags < <(module_flags "$module")
    if swiftc "${flags[@]}" -emit-sil -wmo -parse-as-library -module-name "$module" "${files[@]}" \
        > /dev/null 2> "$dir/log"; then
        echo "apple-shadow: $name (${isolated:-not isolated}, ${sendable:-plain} handlers): ok"
    else
        echo "apple-shadow: $name (${isolated:-not isolated}, ${sendable:-plain} handlers): FAILED" >&2
        grep -E "error:" "$dir/log" | sort -u | head -20 >&2
        status=1
    fi
}

passkeys_sources() {
    find Sources/Passkeys -name '*.swift' ! -name PlatformAuthenticator.swift | sort
}
ui_sources() {
    # The SwiftUI screens need SwiftUI, which has no stand-in; the launchers and the opener are checked.
    find Sources/HaapiUI -name '*.swift' ! -path '*/Apple/*' | sort
}
driver_sources() {
    find Sources/HaapiDriver -name '*.swift' ! -name AppAttestAttester.swift ! -name KeychainStorage.swift \
        ! -name SecureEnclaveSigningKey.swift | sort
}

for variant in "|" "@MainActor|@Sendable"; do
    isolated="${variant%|*}"
    sendable="${variant#*|}"
    mapfile -t passkeys < <(passkeys_sources)
    check Passkeys Passkeys "$isolated" "$sendable" "${passkeys[@]}" \
        adapter:Sources/Passkeys/Authenticator/PlatformAuthenticator.swift
    mapfile -t ui < <(ui_sources)
    check HaapiUI HaapiUI "$isolated" "$sendable" "${ui[@]}" \
        adapter:Sources/HaapiUI/Apple/ExternalBrowserLaunchers.swift adapter:Sources/HaapiUI/Apple/UIApplicationOpener.swift
done
mapfile -t driver < <(driver_sources)
check HaapiDriver HaapiDriver "" "" "${driver[@]}" adapter:Sources/HaapiDriver/Attestation/AppAttestAttester.swift \
    adapter:Sources/HaapiDriver/Storage/KeychainStorage.swift first-branch:Sources/HaapiDriver/Keys/SecureEnclaveSigningKey.swift
exit $status
