import AsyncHTTPClient
import Foundation
@_spi(Tooling) import HaapiDriver
import NIOCore
import NIOHTTP1

/// A plain HTTP exchange, built by hand, for the server's conformance tests and the load generator:
/// neither may depend on the SDK the tests later verify.
///
/// It runs on AsyncHTTPClient rather than URLSession: FoundationNetworking's URLSession (Swift 6.3,
/// Linux) never completes a request answered with 401 and `WWW-Authenticate: Basic`, which RFC 6749
/// §5.2 requires for a failed client_secret_basic. It follows no redirects, so a 302 can be inspected.
public struct RawResponse: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: Data

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
    public var text: String { String(decoding: body, as: UTF8.self) }
    public var json: JSONValue { (try? JSONParser().parse(body)) ?? .null }
    public var contentType: String { header("content-type").map(HaapiMediaType.essence(of:)) ?? "" }
}

public enum RawHTTP {
    private static let client = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(30)))
    )

    public static func send(
        _ method: String, _ url: String, headers: [(String, String)] = [], body: Data? = nil
    ) async throws -> RawResponse {
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .seconds(30))
        let buffer = try await response.body.collect(upTo: 4 * 1024 * 1024)
        var fields: [String: String] = [:]
        for header in response.headers {
            let name = header.name.lowercased()
            fields[name] = fields[name].map { $0 + ", " + header.value } ?? header.value
        }
        return RawResponse(status: Int(response.status.code), headers: fields, body: Data(buffer.readableBytesView))
    }

    public static func form(
        _ url: String, _ values: [(String, String)], headers: [(String, String)] = []
    ) async throws -> RawResponse {
        try await send(
            "POST", url,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")] + headers,
            body: Data(FormURLEncoding.encode(values.map { (name: $0.0, value: $0.1) }).utf8))
    }

    public static func basic(_ id: String, _ secret: String) -> (String, String) {
        let encoded = Data("\(FormURLEncoding.encodeComponent(id)):\(FormURLEncoding.encodeComponent(secret))".utf8)
            .base64EncodedString()
        return ("Authorization", "Basic " + encoded)
    }
}
