// swift-tools-version:6.0
import PackageDescription

/// Set where the client modules use AsyncHTTPClient (Linux). A define per platform, not `canImport`:
/// on macOS `canImport(AsyncHTTPClient)` is true whenever another target of the build links it. Where it is
/// set, no module imports FoundationNetworking (URLSession, URLRequest, HTTPURLResponse are Apple-only API),
/// so Linux binaries carry neither it nor libcurl.
let linuxTransport = SwiftSetting.define("HAAPI_ASYNC_HTTP_CLIENT", .when(platforms: [.linux]))

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
        .library(name: "HaapiServer", targets: ["HaapiServer"]),
        // For an app's unit tests only (never linked into the app): typed models from JSON, scripted servers.
        .library(name: "HaapiTestSupport", targets: ["HaapiTestSupport"]),
        .executable(name: "haapi", targets: ["haapi"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // The dev server's request parts (NIOHTTPTypes) and its service group (graceful shutdown on signals);
        // both already come with Hummingbird.
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", from: "0.14.0"),
        // X.509 chains and ASN.1 for the dev server's App Attest verifier; never linked into a client product.
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        // `swift package generate-documentation` (scripts/docs.sh); a command plugin, never linked into a product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // The wire format: no networking, no crypto.
        .target(name: "HaapiModel"),
        // JOSE, DPoP, PKCE, signing keys, attestation, transports, the HAAPI token manager and HaapiClient.
        .target(
            name: "HaapiDriver",
            dependencies: [
                "HaapiModel",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                // Linux only: URLSession on Linux cannot be trusted with OAuth's 401s, and has no TLS hooks.
                // Apple platforms use URLSession and the Security framework; an app gets no SwiftNIO and no
                // second BoringSSL from the client products.
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(platforms: [.linux])),
            ],
            // Apple's privacy manifest for the client products (every one but HaapiModel includes this module).
            resources: [.copy("PrivacyInfo.xcprivacy")],
            swiftSettings: [linuxTransport]
        ),
        // What apps use: configuration, HaapiManager, OAuthTokenManager, the accessor builder with DCR fallback.
        .target(name: "HaapiSdk", dependencies: ["HaapiDriver"], swiftSettings: [linuxTransport]),
        // The seed's test helpers for an app's own unit tests: steps, problems and token responses from JSON, and a
        // HaapiManager / OAuthTokenManager talking to a scripted transport instead of a server.
        .target(name: "HaapiTestSupport", dependencies: ["HaapiSdk"], swiftSettings: [linuxTransport]),
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
            ],
            swiftSettings: [linuxTransport]
        ),
        // The UI kit: a headless flow view model (Combine on Apple, OpenCombine elsewhere), theming, and
        // SwiftUI/UIKit screens where those frameworks exist.
        .target(
            name: "HaapiUI",
            dependencies: [
                "HaapiSdk", "Passkeys",
                // Not OpenCombineShim: its Foundation part imports FoundationNetworking (and so libcurl).
                .product(name: "OpenCombine", package: "OpenCombine", condition: .when(platforms: [.linux])),
                .product(name: "OpenCombineDispatch", package: "OpenCombine", condition: .when(platforms: [.linux])),
            ],
            // The kit's words, Resources/<language>.lproj/Localizable.strings (English and Swedish).
            resources: [.process("Resources")]
        ),
        // The dev identity server: HAAPI flows, OAuth with DPoP, attestation, DCR, SQLite.
        .target(
            name: "HaapiServer",
            dependencies: [
                "HaapiModel",
                "HaapiDriver",
                "Passkeys",
                "AuthHub",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The HTTP/1.1 channel's configuration: idle timeout and the request read deadline.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        // The command implementations, kept in a library so tests can call them directly.
        .target(
            name: "HaapiCLI",
            dependencies: [
                "HaapiModel",
                "HaapiDriver",
                "HaapiSdk",
                "HaapiUI",
                "Passkeys",
                "AuthHub",
                "HaapiServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [linuxTransport]
        ),
        .executableTarget(name: "haapi", dependencies: ["HaapiCLI"]),
        // A hand-built HAAPI client (raw HTTP, explicit DPoP) and a stand-in for Apple's App Attest: the server's
        // tests and the load generator use it.
        .target(
            name: "HaapiRawClient",
            dependencies: [
                "HaapiDriver", "Passkeys", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .executableTarget(
            name: "haapi-bench",
            dependencies: [
                "HaapiRawClient", "HaapiDriver", "HaapiSdk", "HaapiServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // A command-line app on HaapiSdk with the SDK's defaults; the relaunch test runs it in two processes.
        .executableTarget(name: "haapi-example-app", dependencies: ["HaapiSdk"], path: "Examples/HaapiCommandLineApp"),
        .testTarget(name: "HaapiModelTests", dependencies: ["HaapiModel"]),
        .testTarget(
            name: "HaapiDriverTests",
            dependencies: [
                "HaapiDriver", "HaapiTestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "HaapiServerTests",
            dependencies: [
                "HaapiServer", "HaapiDriver", "HaapiRawClient", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "HaapiTestSupportTests", dependencies: ["HaapiTestSupport"], swiftSettings: [linuxTransport]),
        .testTarget(
            name: "HaapiSdkTests",
            dependencies: [
                "HaapiSdk", "HaapiServer", "HaapiRawClient", "haapi-example-app",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: [linuxTransport]
        ),
        .testTarget(name: "HaapiUITests", dependencies: ["HaapiUI", "Passkeys", "HaapiServer", "HaapiRawClient"]),
        .testTarget(
            name: "PasskeysTests",
            dependencies: ["Passkeys", "HaapiServer", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "AuthHubTests",
            dependencies: [
                "AuthHub", "HaapiServer", "Passkeys", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: [linuxTransport]),
        .testTarget(
            name: "HaapiCLITests",
            dependencies: [
                "HaapiCLI", "haapi", "HaapiServer", "HaapiRawClient",
                // The fault-injecting proxy in front of the dev server (its own HTTP client and server).
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                // A listener that counts the connections a command opens and drops each at once.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ], swiftSettings: [linuxTransport]),
        // The seeds' sample call shapes, compiled in Swift 6 mode here and in Swift 5 mode below (the Swift 5
        // target's files are links to these).
        .testTarget(
            name: "SeedSamplesTests", dependencies: ["HaapiSdk", "HaapiUI", "AuthHub", "HaapiServer"],
            swiftSettings: [linuxTransport]),
        .testTarget(
            name: "SeedSamplesSwift5Tests", dependencies: ["HaapiSdk", "HaapiUI", "AuthHub", "HaapiServer"],
            swiftSettings: [.swiftLanguageMode(.v5), linuxTransport]),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzzing, for scripts/fuzz.sh only (HAAPI_FUZZ=1): libFuzzer harnesses for every parser of outside input,
// and coverage instrumentation (with AddressSanitizer) for the modules they exercise. Never set for other
// builds: these are unsafe flags, and the harnesses link with lld and libFuzzer's driver.
if Context.environment["HAAPI_FUZZ"] == "1" {
    let sanitizers = ["-sanitize=fuzzer,address"]
    let instrumented: Set<String> = ["HaapiModel", "HaapiDriver", "Passkeys", "AuthHub", "HaapiServer"]
    for target in package.targets where instrumented.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(sanitizers)]
    }
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"))
    let harnesses: [(name: String, dependencies: [Target.Dependency])] = [
        ("HaapiDecoderFuzzer", ["HaapiModel"]),
        ("CBORFuzzer", ["Passkeys"]),
        (
            "DPoPProofFuzzer",
            [
                "HaapiModel", "HaapiDriver", "HaapiServer", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        ("DPoPVerifierFuzzer", ["HaapiModel", "HaapiDriver", "HaapiServer"]),
        ("AuthHubResponseFuzzer", ["AuthHub", "HaapiModel"]),
        ("ServerConfigurationFuzzer", ["HaapiServer", "HaapiModel"]),
    ]
    for harness in harnesses {
        package.targets.append(
            .executableTarget(
                name: harness.name, dependencies: ["FuzzSupport"] + harness.dependencies, path: "Fuzz/" + harness.name,
                swiftSettings: [.unsafeFlags(sanitizers + ["-parse-as-library"])],
                linkerSettings: [.unsafeFlags(sanitizers + ["-use-ld=lld"])]))
    }
}
