#!/usr/bin/env bash
# Builds the client modules (HaapiModel, HaapiDriver, HaapiSdk, Passkeys, HaapiUI, AuthHub) against a copy of
# swift-crypto whose keys, SymmetricKey, HMAC and SHA-2 hash states are not Sendable, as in the CryptoKit of
# Xcode 16.0 to 16.2 (iOS 18.0 to 18.2 SDKs). On Apple platforms swift-crypto is CryptoKit, so a Sendable type
# of ours that stores one of these unboxed compiles here with the real swift-crypto and fails there; this build
# fails the same way (see CryptoKeyBox). It does not compile the Apple-only files, which
# .github/workflows/apple.yml does.
#
# Not in .ci/run: it is a second full build (about 10 minutes on two cores the first time, in
# .build-nonsendable). Run it after touching a type that holds a key, a MAC or a hash state.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=.build-nonsendable
swift package --scratch-path "$scratch" resolve > /dev/null
crypto="$scratch/checkouts/swift-crypto"
# Start from the pinned sources each time, then take the conformances away.
git -C "$crypto" checkout -q -- . && git -C "$crypto" clean -fdq
python3 - "$crypto/Sources/Crypto" <<'PY'
import os, re, shutil, sys
root = sys.argv[1]
# (file, pattern whose ", Sendable" or ": Sendable" goes, how many declarations must match)
patches = [
    ("Key Agreement/ECDH.swift", r"(public struct (?:PublicKey|PrivateKey): NISTEC(?:Public|Private)Key), Sendable", 12),
    ("Keys/Symmetric/SymmetricKeys.swift", r"(public struct SymmetricKey: ContiguousBytes), Sendable", 1),
    ("Message Authentication Codes/HMAC/HMAC.swift", r"(public struct HMAC<H: HashFunction>: MACAlgorithm), Sendable", 1),
    ("Digests/HashFunctions_SHA2.swift", r"(public struct SHA(?:256|384|512): HashFunctionImplementationDetails), Sendable", 3),
    # What requires those to be Sendable inside swift-crypto itself.
    ("Key Agreement/DH.swift", r"(public protocol DiffieHellmanKeyAgreement): Sendable", 1),
    ("Key Agreement/DH.swift", r"(associatedtype PublicKey): Sendable", 1),
    ("KEM/KEM.swift", r"(public protocol KEM(?:Public|Private)Key): Sendable", 2),
    ("KEM/KEM.swift", r"(public struct EncapsulationResult): Sendable", 1),
]
for name, pattern, expected in patches:
    path = os.path.join(root, name)
    text = open(path).read()
    text, count = re.subn(pattern, r"\1", text)
    if count != expected:
        sys.exit(f"nonsendable-crypto: {name}: {count} declarations matched, {expected} expected (swift-crypto changed?)")
    open(path, "w").write(text)
# HPKE and X-Wing are built on Sendable keys throughout and are used by none of our modules.
shutil.rmtree(os.path.join(root, "HPKE"))
for name in ("KEM/XWing.swift", "KEM/BoringSSL/XWing_boring.swift"):
    os.remove(os.path.join(root, name))
PY
touch "$crypto/Package.swift"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for target in HaapiUI AuthHub; do
    echo "== $target against non-Sendable swift-crypto types"
    if ! swift build --scratch-path "$scratch" --disable-automatic-resolution --target "$target" > "$log" 2>&1; then
        grep -E "error:" "$log" | grep -v '^ ' | sort -u >&2
        echo "nonsendable-crypto: $target does not build" >&2
        exit 1
    fi
    grep -E "warning: .*Sendable|Build of target" "$log" | grep -v '^ ' | sort -u
done
echo "nonsendable-crypto: every client module builds with non-Sendable keys, MACs and hash states"
