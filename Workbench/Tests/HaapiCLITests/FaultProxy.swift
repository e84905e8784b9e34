import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Hummingbird
import NIOCore

#if HAAPI_ASYNC_HTTP_CLIENT
import HaapiAsyncHTTPClient
#endif

/// A loopback HTTP proxy in front of the dev server that breaks one behaviour at a time, so `haapi check`
/// can be shown to report each fault by its own finding (issue 33).
final class FaultProxy: Sendable {
    enum Fault: String, Sendable, CaseIterable {
        /// Forwards everything unchanged.
        case none
        /// Answers a request whose `DPoP` proof it has seen before with the answer to the first one: a
        /// server without replay protection.
        case replayAnswer
        /// Removes `DPoP-Nonce` from every answer.
        case dropNonce
        /// Names another issuer in the discovery document.
        case rewriteIssuer
        /// Advertises a UserInfo endpoint the server does not serve.
        case missingEndpoint
        /// Turns a `plain` PKCE challenge into the S256 challenge of the same verifier: a server that
        /// accepts `plain`.
        case acceptPlainPKCE
        /// Answers a refresh with the refresh token that was presented: a server that does not rotate.
        case sameRefreshToken
        /// Sends the last flow session upstream when a step comes without `Session-Id`: a server that
        /// continues a flow for a request that does not name it.
        case ignoreSessionHeader
        /// Answers every second token request after the first two with 500 `server_error`: a server failing
        /// under the run, whose refusals prove nothing.
        case failEverySecondTokenRequest
        /// Answers every token request 401 `invalid_client`: the client's credentials are refused.
        case refuseClient
        /// Answers every introspection `{"active": false}`: a server that never shows the client its tokens.
        case introspectionInactive
        /// Replaces the access token of every token response with a readable JWT that has no `cnf`.
        case jwtWithoutCnf
    }

    private let state: State
    private let server: LoopbackHTTPServer

    var url: URL { server.url }

    /// Listens on a free loopback port; `forward(to:)` names the server behind it.
    init() async throws {
        let state = State()
        self.state = state
        server = try await LoopbackHTTPServer { request in try await state.handle(request) }
    }

    func forward(to upstream: URL) async { await state.set(upstream: upstream) }
    func set(_ fault: Fault) async { await state.set(fault: fault) }
    /// Names `other` in place of `own` in every endpoint of the discovery document (the issuer stays).
    func moveEndpoints(from own: URL, to other: URL) async { await state.set(moved: (own, other)) }
    /// The requests this proxy has received.
    func received() async -> Int { await state.received }
    func stop() { server.stop() }

    private actor State {
        private var upstream: URL?
        private var fault = Fault.none
        private var answers: [String: HaapiDriver.HTTPResponse] = [:]
        private var lastSession: String?
        private var tokenRequests = 0
        private var moved: (from: URL, to: URL)?
        private(set) var received = 0
        private let transport: (any HTTPTransport)?

        init() {
            #if HAAPI_ASYNC_HTTP_CLIENT
            transport = try? AsyncHTTPClientTransport(timeout: 15)
            #else
            transport = URLSessionTransport()
            #endif
        }

        func set(upstream: URL) { self.upstream = upstream }
        func set(moved: (URL, URL)) { self.moved = moved }
        func set(fault: Fault) {
            self.fault = fault
            answers = [:]
            lastSession = nil
            tokenRequests = 0
        }

        func handle(_ request: Request) async throws -> Response {
            received += 1
            guard let upstream, let transport else { return Response(status: .badGateway) }
            var path = request.uri.path
            var query = request.uri.query
            if fault == .acceptPlainPKCE, path.hasSuffix("/authorize"), let original = query {
                query = Self.plainToS256(original)
            }
            if let query, !query.isEmpty { path += "?" + query }
            guard let target = URL(string: upstream.absoluteString + path) else { return Response(status: .badRequest) }
            let body = try await request.body.collect(upTo: 1 << 20)
            let hopByHop: Set<String> = ["host", "content-length", "connection", "transfer-encoding"]
            var headers = request.headers.filter { !hopByHop.contains($0.name.canonicalName) }
                .map { (name: $0.name.rawName, value: $0.value) }
            // Not on the authorization request: that one starts a flow and rightly carries no session.
            if fault == .ignoreSessionHeader, let lastSession, !request.uri.path.hasSuffix("/authorize"),
                !headers.contains(where: { $0.name.lowercased() == "session-id" })
            {
                headers.append(("Session-Id", lastSession))
            }
            if request.method == .post, request.uri.path.hasSuffix("/oauth/token") {
                tokenRequests += 1
                if fault == .refuseClient {
                    return Self.json(
                        #"{"error":"invalid_client","error_description":"client authentication failed"}"#, 401)
                }
                if fault == .failEverySecondTokenRequest, tokenRequests > 2, tokenRequests % 2 == 0 {
                    return Self.json(#"{"error":"server_error"}"#, 500)
                }
            }
            if fault == .introspectionInactive, request.uri.path.hasSuffix("/introspect") {
                return Self.json(#"{"active":false}"#, 200)
            }
            let proof = request.headers.first { $0.name.canonicalName == "dpop" }?.value
            if fault == .replayAnswer, let proof, let seen = answers[proof] { return Self.response(seen, fault: fault) }
            var answer = try await transport.send(
                HaapiDriver.HTTPRequest(
                    method: request.method.rawValue, url: target, headers: headers,
                    body: body.readableBytes > 0 ? Data(body.readableBytesView) : nil))
            if fault == .replayAnswer, let proof, answers.count < 1_000 { answers[proof] = answer }
            if let session = answer.header("Set-Session-Id") { lastSession = session }
            if fault == .rewriteIssuer, path.contains("/.well-known/") {
                answer = Self.rewriting(answer) { $0["issuer"] = "https://issuer.example" }
            }
            if let moved, path.contains("/.well-known/") {
                answer = Self.rewriting(answer) { document in
                    let own = moved.from.absoluteString
                    for (name, value) in document where name.hasSuffix("_endpoint") || name == "jwks_uri" {
                        guard let url = value.stringValue, url.hasPrefix(own) else { continue }
                        document[name] = .string(moved.to.absoluteString + url.dropFirst(own.count))
                    }
                }
            }
            if fault == .missingEndpoint, path.contains("/.well-known/") {
                answer = Self.rewriting(answer) { document in
                    if let userinfo = document["userinfo_endpoint"]?.stringValue {
                        document["userinfo_endpoint"] = .string(userinfo + "-gone")
                    }
                }
            }
            if fault == .sameRefreshToken,
                let presented = FormURLEncoding.decode(String(decoding: body.readableBytesView, as: UTF8.self))?
                    .first(where: { $0.0 == "refresh_token" })?.1
            {
                answer = Self.rewriting(answer) { object in
                    if object["refresh_token"] != nil { object["refresh_token"] = .string(presented) }
                }
            }
            if fault == .jwtWithoutCnf, request.uri.path.hasSuffix("/oauth/token") {
                answer = Self.rewriting(answer) { object in
                    guard object["access_token"] != nil else { return }
                    let header = Base64URL.encode(Data(#"{"alg":"ES256","typ":"at+jwt"}"#.utf8))
                    let claims = Base64URL.encode(Data(#"{"sub":"check","scope":"api","exp":4102444800}"#.utf8))
                    object["access_token"] = .string(header + "." + claims + ".c2lnbmF0dXJl")
                }
            }
            return Self.response(answer, fault: fault)
        }

        static func json(_ body: String, _ status: Int) -> Response {
            Response(
                status: .init(code: status), headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string: body)))
        }

        /// `code_challenge_method=plain` becomes S256 with BASE64URL(SHA256(challenge)): the upstream then
        /// accepts the plain verifier, as a server that allows `plain` would.
        private static func plainToS256(_ query: String) -> String {
            guard var items = FormURLEncoding.decode(query),
                items.contains(where: { $0.0 == "code_challenge_method" && $0.1 == "plain" }),
                let challenge = items.first(where: { $0.0 == "code_challenge" })?.1
            else { return query }
            items = items.map { name, value in
                switch name {
                case "code_challenge_method": (name, "S256")
                case "code_challenge": (name, PKCE.challenge(for: challenge))
                default: (name, value)
                }
            }
            return FormURLEncoding.encode(items)
        }

        private static func rewriting(
            _ answer: HaapiDriver.HTTPResponse, _ change: (inout JSONObject) -> Void
        ) -> HaapiDriver.HTTPResponse {
            guard case .object(var object)? = try? JSONParser().parse(answer.body) else { return answer }
            change(&object)
            return HaapiDriver.HTTPResponse(
                statusCode: answer.statusCode, headers: answer.headers,
                body: Data(JSONValue.object(object).serialized().utf8), url: answer.url)
        }

        private static func response(_ answer: HaapiDriver.HTTPResponse, fault: Fault) -> Response {
            var fields = HTTPFields()
            let dropped: Set<String> = Set(["content-length", "connection", "transfer-encoding"])
                .union(fault == .dropNonce ? ["dpop-nonce"] : [])
            for (name, value) in answer.headers where !dropped.contains(name.lowercased()) {
                if let field = HTTPFields.Element.Name(name) {
                    fields.append(HTTPFields.Element(name: field, value: value))
                }
            }
            return Response(
                status: .init(code: answer.statusCode), headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
    }
}
