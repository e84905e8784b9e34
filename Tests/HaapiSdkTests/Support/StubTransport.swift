import Foundation
@_spi(Tooling) import HaapiSdk

/// What a recording transport saw of one exchange.
struct RecordedExchange: Sendable {
    let method: String
    let path: String
    let form: String
    let proofNonce: String?
    let status: Int
    let askedForNonce: Bool
}

/// Passes requests to the real network and records each exchange.
actor RecordingTransport: HTTPTransport {
    static let plain = defaultHTTPTransport()
    private let inner: any HTTPTransport
    private(set) var requests: [RecordedExchange] = []

    init(inner: any HTTPTransport = defaultHTTPTransport()) {
        self.inner = inner
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let response = try await inner.send(request)
        let nonce = request.header("DPoP").flatMap { try? DPoPProof(parsing: $0) }?.nonce
        let askedForNonce =
            (response.statusCode == 400 || response.statusCode == 401)
            && (response.header("WWW-Authenticate")?.contains("use_dpop_nonce") == true
                || String(decoding: response.body, as: UTF8.self).contains("use_dpop_nonce"))
        requests.append(
            RecordedExchange(
                method: request.method, path: request.url.path,
                form: String(decoding: request.body ?? Data(), as: UTF8.self),
                proofNonce: nonce, status: response.statusCode, askedForNonce: askedForNonce))
        return response
    }

    func count(where predicate: (RecordedExchange) -> Bool) -> Int { requests.filter(predicate).count }
}

/// Answers from a script, for faults the real server never produces.
final class StubTransport: HTTPTransport, @unchecked Sendable {
    typealias Handler = @Sendable (HTTPRequest) async throws(TransportError) -> HTTPResponse
    private let lock = NSLock()
    private var handlers: [(matches: @Sendable (HTTPRequest) -> Bool, handler: Handler)] = []
    private(set) var sent: [HTTPRequest] = []

    func on(_ matches: @escaping @Sendable (HTTPRequest) -> Bool, _ handler: @escaping Handler) {
        lock.lock()
        handlers.append((matches, handler))
        lock.unlock()
    }

    func on(path suffix: String, method: String? = nil, _ handler: @escaping Handler) {
        on({ $0.url.path.hasSuffix(suffix) && (method == nil || $0.method == method) }, handler)
    }

    var sentCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return sent.count
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let handler = record(request)
        guard let handler else { return Self.json(request, 404, ["error": "not_found"]) }
        return try await handler(request)
    }

    private func record(_ request: HTTPRequest) -> Handler? {
        lock.withLock {
            sent.append(request)
            return handlers.last { $0.matches(request) }?.handler
        }
    }

    static func json(
        _ request: HTTPRequest, _ status: Int, _ body: JSONValue, headers: [String: String] = [:]
    ) -> HTTPResponse {
        HTTPResponse(
            statusCode: status, headers: ["Content-Type": "application/json"].merging(headers) { $1 },
            body: Data(body.serialized().utf8), url: request.url)
    }

    static func raw(
        _ request: HTTPRequest, _ status: Int, contentType: String, _ body: String, headers: [String: String] = [:]
    ) -> HTTPResponse {
        HTTPResponse(
            statusCode: status, headers: ["Content-Type": contentType].merging(headers) { $1 }, body: Data(body.utf8),
            url: request.url)
    }

    /// A working CAT + HAAPI token exchange, so faults can be placed after it.
    func serveHaapiToken(lifetime: Int = 600) {
        on(path: "/oauth/token/cat", method: "GET") { request in Self.json(request, 200, ["challenge": "c1"]) }
        on(path: "/oauth/token/cat", method: "POST") { request in Self.json(request, 200, ["cat": "cat-1"]) }
        on(path: "/oauth/token", method: "POST") { request in
            Self.json(
                request, 200,
                ["access_token": "haapi-at", "token_type": "DPoP", "expires_in": .number(JSONNumber(lifetime))])
        }
    }
}

/// A flow against a `StubTransport`: a configuration for a host of its own, and a start whose authorize
/// request gets a scripted answer.
enum StubFlow {
    /// A host of its own per use: nonces are remembered per origin, and tests run in parallel.
    static var base: URL { URL(string: "https://login-\(UUID().uuidString.lowercased()).example")! }

    static func configuration(_ transport: any HTTPTransport) -> HaapiConfiguration {
        let base = Self.base
        return HaapiConfiguration(
            name: "fault-" + UUID().uuidString, clientId: "haapi-demo", baseURL: base,
            tokenEndpointURL: base.appendingPathComponent("oauth/token"),
            authorizationEndpointURL: base.appendingPathComponent("oauth/authorize"), appRedirect: "app://haapi",
            transport: transport,
            revocationEndpointURL: base.appendingPathComponent("oauth/revoke"), attester: SoftwareAttester(),
            tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256))
    }

    /// Starts a flow whose authorize request gets `answer`.
    static func startAgainst(_ answer: @escaping StubTransport.Handler) async throws -> (HaapiResult, StubTransport) {
        let stub = StubTransport()
        stub.serveHaapiToken()
        stub.on(path: "/oauth/authorize", answer)
        let manager = try HaapiManager(haapiConfiguration: configuration(stub))
        let result = await manager.start()
        await manager.close()
        return (result, stub)
    }
}
