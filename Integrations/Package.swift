// swift-tools-version:6.0
import PackageDescription

/// What an app adds beside the SDK when it wants it, at the cost of its dependencies: the AsyncHTTPClient
/// transport (Linux apps that need TLS pinning, a client identity, or the body of a 401 that FoundationNetworking
/// holds back) and the swift-log sink. The SDK itself (`..`) depends on neither.
let package = Package(
    name: "swift-haapi-integrations",
    platforms: [.iOS(.v15), .macOS(.v13)],
    products: [
        .library(name: "HaapiAsyncHTTPClient", targets: ["HaapiAsyncHTTPClient"]),
        .library(name: "HaapiSwiftLog", targets: ["HaapiSwiftLog"]),
    ],
    dependencies: [
        .package(name: "swift-haapi", path: ".."),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // HTTPTransport over AsyncHTTPClient, with TLSOptions through NIOSSL (pins, private roots, mTLS).
        .target(
            name: "HaapiAsyncHTTPClient",
            dependencies: [
                .product(name: "HaapiDriver", package: "swift-haapi"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        // HaapiLogger's lines through swift-log.
        .target(
            name: "HaapiSwiftLog",
            dependencies: [
                .product(name: "HaapiDriver", package: "swift-haapi"), .product(name: "Logging", package: "swift-log"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
