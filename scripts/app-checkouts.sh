#!/usr/bin/env bash
# What an app that adds the SDK gets (issue 50): fails when
#   1. a client module (Sources/<Module>, the SDK package's targets) imports anything but the platform's
#      frameworks, its own dependencies (swift-crypto, OpenCombine) and the SDK's other modules: a workbench
#      module (the dev server, the rules, haapi check, the raw client) or an integration never belongs there;
#   2. a scratch app that uses every client product (HaapiModel, HaapiDriver, HaapiSdk, HaapiUI, Passkeys,
#      AuthHub) checks out more than 3 packages, or any server, database or SwiftNIO package.
# The app depends on this checkout by path, as `swift package resolve` sees a release tag's tree.
#   scripts/app-checkouts.sh
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
status=0

sdk_modules="HaapiModel HaapiDriver HaapiSdk HaapiUI Passkeys AuthHub HaapiTestSupport"
# The platform (Apple frameworks, Linux's Foundation parts and libc) and the SDK's two dependencies.
allowed="Foundation FoundationNetworking FoundationEssentials Dispatch Glibc Musl Darwin os Combine CryptoKit Security
DeviceCheck AuthenticationServices LocalAuthentication SafariServices SwiftUI UIKit AppKit CoreText Observation
Synchronization Crypto _CryptoExtras OpenCombine OpenCombineDispatch $sdk_modules"
for module in $sdk_modules; do
  while IFS= read -r line; do
    file="${line%%:*}"
    imported="$(sed -E 's/.*import[[:space:]]+(struct |class |enum |protocol |func |typealias )?([A-Za-z_][A-Za-z0-9_]*).*/\2/' <<<"${line#*:}")"
    if ! grep -qw -- "$imported" <<<"$allowed"; then
      echo "app-checkouts: $file imports $imported, which is not the platform's, the SDK's or its dependencies'"
      status=1
    fi
  done < <(grep -rEH '^[[:space:]]*(@[A-Za-z_]+(\([A-Za-z_]+\))?[[:space:]]+)*import[[:space:]]' "Sources/$module" --include='*.swift')
done
[ "$status" -eq 0 ] && echo "app-checkouts: the client modules import only the platform, swift-crypto, OpenCombine and each other"

app="$(mktemp -d)"
trap 'rm -rf "$app"' EXIT
mkdir -p "$app/Sources/App"
cat >"$app/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "ScratchApp",
    platforms: [.iOS(.v15), .macOS(.v13)],
    dependencies: [.package(name: "swift-haapi", path: "$root")],
    targets: [
        .executableTarget(
            name: "App",
            dependencies: ["HaapiModel", "HaapiDriver", "HaapiSdk", "HaapiUI", "Passkeys", "AuthHub"].map {
                .product(name: \$0, package: "swift-haapi")
            })
    ]
)
MANIFEST
echo 'import HaapiSdk' >"$app/Sources/App/main.swift"
if ! swift package --package-path "$app" resolve >"$app/resolve.log" 2>&1; then
  echo "app-checkouts: FAILED: swift package resolve"
  tail -20 "$app/resolve.log"
  exit 1
fi
checkouts=$(ls "$app/.build/checkouts" 2>/dev/null | sort)
count=$(grep -c . <<<"$checkouts" || true)
echo "app-checkouts: an app using every client product checks out $count packages: $(echo $checkouts)"
if [ "$count" -gt 3 ]; then
  echo "app-checkouts: FAILED: more than 3 (AppAuth-iOS checks out none, Auth0.swift two)"
  status=1
fi
if grep -Eiq 'nio|hummingbird|grdb|sqlite|async-http-client|service-lifecycle|argument-parser|swift-log' <<<"$checkouts"; then
  echo "app-checkouts: FAILED: a server, database, SwiftNIO or tool package is among them"
  status=1
fi
exit $status
