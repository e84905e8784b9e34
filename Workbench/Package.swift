// swift-tools-version:6.0
import PackageDescription

/// The workbench beside the SDK: the dev identity server, the `haapi` tool (with `haapi check`), the raw HAAPI
/// client, the benchmark, the fuzzers, an example app and every test that needs a server. It depends on the SDK
/// (`..`) and its integrations (`../Integrations`) by path; nothing in the SDK depends on it.
///
/// Set where the workbench's Linux code uses AsyncHTTPClient (HaapiAsyncHTTPClient) where the SDK's default would
/// be FoundationNetworking's URLSession: the tool presents client certificates and pins keys, and reads the
/// bodies of 401 answers.
let linuxTransport = SwiftSetting.define("HAAPI_ASYNC_HTTP_CLIENT", .when(platforms: [.linux]))

let sdk = "swift-haapi"
let integrations = "swift-haapi-integrations"

let package = Package(
    name: "swift-haapi-workbench",
    defaultLocalization: "en",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "haapi", targets: ["haapi"]),
        .executable(name: "haapi-bench", targets: ["haapi-bench"]),
        .library(name: "HaapiServer", targets: ["HaapiServer"]),
    ],
    // Pinned to the minor version: the workbench is an application, and a new minor version of a dependency is a
    // change someone makes and tests (README, "Package.resolved"), not a drift. The SDK's own manifest leaves its
    // users free within the major version.
    dependencies: [
        .package(name: sdk, path: ".."),
        .package(name: integrations, path: "../Integrations"),
        .package(url: "https://github.com/apple/swift-crypto.git", .upToNextMinor(from: "4.5.2")),
        .package(url: "https://github.com/apple/swift-argument-parser.git", .upToNextMinor(from: "1.8.2")),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", .upToNextMinor(from: "2.28.1")),
        .package(url: "https://github.com/groue/GRDB.swift.git", .upToNextMinor(from: "7.10.0")),
        .package(url: "https://github.com/swift-server/async-http-client.git", .upToNextMinor(from: "1.37.0")),
        .package(url: "https://github.com/apple/swift-log.git", .upToNextMinor(from: "1.16.2")),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", .upToNextMinor(from: "2.37.6")),
        .package(url: "https://github.com/apple/swift-nio.git", .upToNextMinor(from: "2.101.2")),
        // The dev server's request parts (NIOHTTPTypes) and its service group (graceful shutdown on signals);
        // both already come with Hummingbird.
        .package(url: "https://github.com/apple/swift-nio-extras.git", .upToNextMinor(from: "1.35.2")),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", .upToNextMinor(from: "2.13.0")),
        // X.509 chains and ASN.1 for the dev server's App Attest verifier.
        .package(url: "https://github.com/apple/swift-certificates.git", .upToNextMinor(from: "1.21.1")),
        .package(url: "https://github.com/apple/swift-asn1.git", .upToNextMinor(from: "1.7.4")),
    ],
    targets: [
        // The rules a request can break, with their titles, references and fixes: the dev server refuses under
        // them and `haapi check` reports under the same ids.
        .target(name: "HaapiRules"),
        // The dev identity server: HAAPI flows, OAuth with DPoP, attestation, DCR, SQLite.
        .target(
            name: "HaapiServer",
            dependencies: [
                "HaapiRules",
                .product(name: "HaapiModel", package: sdk),
                .product(name: "HaapiDriver", package: sdk),
                .product(name: "Passkeys", package: sdk),
                .product(name: "AuthHub", package: sdk),
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
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `haapi check`: any HAAPI / OAuth + DPoP server diagnosed through the SDK, under the rules' ids. It does
        // not import the dev server.
        .target(
            name: "HaapiCheck",
            dependencies: [
                "HaapiRules",
                .product(name: "HaapiModel", package: sdk),
                .product(name: "HaapiDriver", package: sdk),
                .product(name: "HaapiSdk", package: sdk),
                // The unattended login's failures are the UI kit's errors, classified as the interactive login's.
                .product(name: "HaapiUI", package: sdk),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [linuxTransport]
        ),
        // The command implementations, kept in a library so tests can call them directly.
        .target(
            name: "HaapiCLI",
            dependencies: [
                "HaapiRules", "HaapiCheck", "HaapiServer",
                .product(name: "HaapiModel", package: sdk),
                .product(name: "HaapiDriver", package: sdk),
                .product(name: "HaapiSdk", package: sdk),
                .product(name: "HaapiUI", package: sdk),
                .product(name: "Passkeys", package: sdk),
                .product(name: "AuthHub", package: sdk),
                .product(
                    name: "HaapiAsyncHTTPClient", package: integrations, condition: .when(platforms: [.linux])),
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
                .product(name: "HaapiDriver", package: sdk), .product(name: "Passkeys", package: sdk),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]
        ),
        .executableTarget(
            name: "haapi-bench",
            dependencies: [
                "HaapiRawClient", "HaapiServer",
                .product(name: "HaapiDriver", package: sdk), .product(name: "HaapiSdk", package: sdk),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // A command-line app on HaapiSdk with the SDK's defaults; the relaunch test runs it in two processes.
        .executableTarget(name: "haapi-example-app", dependencies: [.product(name: "HaapiSdk", package: sdk)]),
        // Starting commands from tests without Foundation's Process (see ChildProcess for why).
        .target(name: "ChildProcesses", path: "Tests/ChildProcesses"),
        // A proxy that does to chosen requests what a phone's network does (resets, stalls, cut answers, 503s).
        .target(name: "NetworkFaults", path: "Tests/NetworkFaults"),
        .testTarget(
            name: "HaapiServerTests",
            dependencies: [
                "HaapiServer", "HaapiRules", "HaapiRawClient", .product(name: "HaapiDriver", package: sdk),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SdkEndToEndTests",
            dependencies: [
                "HaapiServer", "HaapiRawClient", "ChildProcesses", "NetworkFaults", "haapi-example-app",
                .product(name: "HaapiSdk", package: sdk),
                .product(name: "HaapiAsyncHTTPClient", package: integrations),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: [linuxTransport]
        ),
        .testTarget(
            name: "UIEndToEndTests",
            dependencies: [
                "HaapiServer", "HaapiRawClient", "NetworkFaults", .product(name: "HaapiUI", package: sdk),
                .product(name: "Passkeys", package: sdk),
            ]),
        .testTarget(
            name: "PasskeysEndToEndTests",
            dependencies: [
                "HaapiServer", .product(name: "Passkeys", package: sdk),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "AuthHubEndToEndTests",
            dependencies: [
                "HaapiServer", .product(name: "AuthHub", package: sdk), .product(name: "Passkeys", package: sdk),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "SeedSampleRunTests",
            dependencies: [
                "HaapiServer", .product(name: "HaapiSdk", package: sdk), .product(name: "HaapiUI", package: sdk),
                .product(name: "AuthHub", package: sdk),
            ]),
        .testTarget(
            name: "IntegrationsTests",
            dependencies: [
                .product(name: "HaapiDriver", package: sdk), .product(name: "HaapiSwiftLog", package: integrations),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "HaapiCLITests",
            dependencies: [
                "HaapiCLI", "HaapiCheck", "HaapiRules", "haapi", "HaapiServer", "HaapiRawClient", "ChildProcesses",
                "NetworkFaults",
                .product(
                    name: "HaapiAsyncHTTPClient", package: integrations, condition: .when(platforms: [.linux])),
                // The fault-injecting proxy in front of the dev server (its own HTTP client and server).
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                // A listener that counts the connections a command opens and drops each at once.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ], swiftSettings: [linuxTransport]),
    ],
    swiftLanguageModes: [.v6]
)

// Fuzzing, for scripts/fuzz.sh only (HAAPI_FUZZ=1): libFuzzer harnesses for every parser of outside input,
// and coverage instrumentation (with AddressSanitizer) for the modules they exercise. Never set for other
// builds: these are unsafe flags, and the harnesses link with lld and libFuzzer's driver. The SDK's parsers are
// instrumented by the SDK's own manifest under the same variable.
if Context.environment["HAAPI_FUZZ"] == "1" {
    let sanitizers = ["-sanitize=fuzzer,address"]
    let instrumented: Set<String> = ["HaapiServer"]
    for target in package.targets where instrumented.contains(target.name) {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(sanitizers)]
    }
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/FuzzSupport"))
    let harnesses: [(name: String, dependencies: [Target.Dependency])] = [
        ("HaapiDecoderFuzzer", [.product(name: "HaapiModel", package: sdk)]),
        ("CBORFuzzer", [.product(name: "Passkeys", package: sdk)]),
        (
            "DPoPProofFuzzer",
            [
                .product(name: "HaapiModel", package: sdk), .product(name: "HaapiDriver", package: sdk),
                "HaapiServer", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        (
            "DPoPVerifierFuzzer",
            [.product(name: "HaapiModel", package: sdk), .product(name: "HaapiDriver", package: sdk), "HaapiServer"]
        ),
        (
            "AuthHubResponseFuzzer",
            [.product(name: "AuthHub", package: sdk), .product(name: "HaapiModel", package: sdk)]
        ),
        ("ServerConfigurationFuzzer", ["HaapiServer", .product(name: "HaapiModel", package: sdk)]),
    ]
    for harness in harnesses {
        package.targets.append(
            .executableTarget(
                name: harness.name, dependencies: ["FuzzSupport"] + harness.dependencies, path: "Fuzz/" + harness.name,
                swiftSettings: [.unsafeFlags(sanitizers + ["-parse-as-library"])],
                linkerSettings: [.unsafeFlags(sanitizers + ["-use-ld=lld"])]))
    }
}
