// swift-tools-version:6.0
import PackageDescription

/// The SDK: what an app adds. Its dependencies are swift-crypto (with swift-asn1) and, for the UI kit's view
/// model on Linux, OpenCombine: an app that uses every product checks out those three packages and nothing
/// else (`scripts/app-checkouts.sh` measures it in CI). The dev server, the `haapi` tool, the benchmarks, the
/// fuzzers and the tests that need a server are the workbench beside it (`Workbench/`); the AsyncHTTPClient
/// transport and the swift-log sink are `Integrations/`. Nothing here imports either.
let package = Package(
    name: "swift-haapi",
    defaultLocalization: "en",
    platforms: [.iOS(.v15), .macOS(.v13)],
    products: [
        .library(name: "HaapiModel", targets: ["HaapiModel"]),
        .library(name: "HaapiDriver", targets: ["HaapiDriver"]),
        .library(name: "HaapiSdk", targets: ["HaapiSdk"]),
        .library(name: "HaapiUI", targets: ["HaapiUI"]),
        .library(name: "Passkeys", targets: ["Passkeys"]),
        .library(name: "AuthHub", targets: ["AuthHub"]),
        // For an app's unit tests only (never linked into the app): typed models from JSON, scripted servers.
        .library(name: "HaapiTestSupport", targets: ["HaapiTestSupport"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
    ],
    targets: [
        // The wire format: no networking, no crypto.
        .target(name: "HaapiModel"),
        // JOSE, DPoP, PKCE, signing keys, attestation, the URLSession transport, the HAAPI token manager and
        // HaapiClient.
        .target(
            name: "HaapiDriver",
            dependencies: [
                "HaapiModel",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            // Apple's privacy manifest for the client products (every one but HaapiModel includes this module).
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        // What apps use: configuration, HaapiManager, OAuthTokenManager, the accessor builder with DCR fallback.
        .target(name: "HaapiSdk", dependencies: ["HaapiDriver"]),
        // The seed's test helpers for an app's own unit tests: steps, problems and token responses from JSON, and a
        // HaapiManager / OAuthTokenManager talking to a scripted transport instead of a server.
        .target(name: "HaapiTestSupport", dependencies: ["HaapiSdk"]),
        // WebAuthn: CBOR, COSE keys, the JSON types, authenticators (software; ASAuthorization on Apple), RP checks.
        .target(
            name: "Passkeys",
            dependencies: [
                "HaapiDriver", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The Authentication Hub client (seed 002): flow API, network module, field encryption.
        .target(
            name: "AuthHub",
            dependencies: [
                "HaapiDriver", "Passkeys", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The UI kit: a headless flow view model (Combine on Apple, OpenCombine elsewhere), theming, and
        // SwiftUI/UIKit screens where those frameworks exist.
        .target(
            name: "HaapiUI",
            dependencies: [
                "HaapiSdk", "Passkeys",
                // Not OpenCombineShim: its Foundation part imports FoundationNetworking for nothing the kit uses.
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            // The kit's words, Resources/<language>.lproj/Localizable.strings (English and Swedish).
            resources: [.process("Resources")]
        ),
        // The SDK's own tests: none needs a server (those are in Workbench/Tests).
        .testTarget(name: "HaapiModelTests", dependencies: ["HaapiModel"]),
        .testTarget(
            name: "HaapiDriverTests",
            dependencies: ["HaapiDriver", "HaapiTestSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(name: "HaapiTestSupportTests", dependencies: ["HaapiTestSupport"]),
        .testTarget(name: "HaapiSdkTests", dependencies: ["HaapiSdk", "HaapiTestSupport"]),
        .testTarget(name: "HaapiUITests", dependencies: ["HaapiUI", "Passkeys"]),
        .testTarget(
            name: "PasskeysTests", dependencies: ["Passkeys", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "AuthHubTests",
            dependencies: [
                "AuthHub", "Passkeys", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        // The seeds' sample call shapes, compiled in Swift 6 mode here and in Swift 5 mode below (the Swift 5
        // target's files are links to these).
        .testTarget(name: "SeedSamplesTests", dependencies: ["HaapiSdk", "HaapiUI", "AuthHub"]),
        .testTarget(
            name: "SeedSamplesSwift5Tests", dependencies: ["HaapiSdk", "HaapiUI", "AuthHub"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
    ],
    swiftLanguageModes: [.v6]
)

// Coverage instrumentation (with AddressSanitizer) of the SDK's parsers for the workbench's fuzzers
// (scripts/fuzz.sh sets HAAPI_FUZZ=1; nothing else does): the harnesses are the workbench's, the parsers here.
if Context.environment["HAAPI_FUZZ"] == "1" {
    let instrumented: Set<String> = ["HaapiModel", "HaapiDriver", "Passkeys", "AuthHub"]
    for target in package.targets where instrumented.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=fuzzer,address"])]
    }
}
