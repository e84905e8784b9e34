import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

/// What mobile networks and broken servers do to the SDK. Every case must end in a `HaapiError` with the
/// right recovery suggestion, quickly, and never hang.
@Suite("SDK faults", .timeLimit(.minutes(3)))
struct FaultTests {
    @Test("a transport timeout is a retryable communication error")
    func timeout() async throws {
        let (result, _) = try await StubFlow.startAgainst { _ throws(TransportError) in throw .timedOut(after: 5) }
        let error = try #require(result.haapiError)
        guard case .communication = error else {
            Issue.record("\(error)")
            return
        }
        #expect(error.recoverySuggestion == .retryable(condition: .afterDelay))
        #expect(error.cause as? TransportError == .timedOut(after: 5))
    }

    @Test(
        "5xx with an HTML page is to retry later: a 500 a server error, a 502/503/504 the server unavailable",
        arguments: [500, 502, 503, 504])
    func serverFailure(status: Int) async throws {
        let (result, _) = try await StubFlow.startAgainst {
            StubTransport.raw($0, status, contentType: "text/html", "<h1>down</h1>")
        }
        let error = try #require(result.haapiError)
        #expect(error.recoverySuggestion == .retryable(condition: .afterDelay))
        switch error {
        case .serverError(_, _, let code): #expect(code == status && status == 500)
        case .communication(_, let unavailable as ServerUnavailable):
            #expect(unavailable == ServerUnavailable(statusCode: status, retryAfter: nil))
        default: Issue.record("\(error)")
        }
    }

    @Test("a truncated HAAPI body is a communication error that names the decoding failure")
    func truncatedBody() async throws {
        let (result, _) = try await StubFlow.startAgainst {
            StubTransport.raw(
                $0, 200, contentType: "application/vnd.auth+json",
                #"{"type":"authentication-step","actions":[{"template":"fo"#)
        }
        let error = try #require(result.haapiError)
        guard case .communication(let message, let cause) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(message.contains("cannot be decoded"))
        #expect(cause is HaapiDecodingError)
    }

    @Test("a wrong content type is a communication error", arguments: ["text/html", "text/plain", ""])
    func wrongContentType(contentType: String) async throws {
        let (result, _) = try await StubFlow.startAgainst {
            StubTransport.raw($0, 200, contentType: contentType, "<html>login</html>")
        }
        let error = try #require(result.haapiError)
        guard case .communication(let message, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(message.contains(contentType == "text/html" ? "captive portal" : "content type"), "\(message)")
    }

    @Test("a nonce that keeps changing: exactly one retry, then a retryable use_dpop_nonce error")
    func restlessNonce() async throws {
        let counter = Counter()
        let (result, stub) = try await StubFlow.startAgainst { request in
            let n = counter.next()
            return StubTransport.json(
                request, 401, ["error": "use_dpop_nonce"],
                headers: ["DPoP-Nonce": "nonce-\(n)", "WWW-Authenticate": #"DPoP error="use_dpop_nonce""#])
        }
        let error = try #require(result.haapiError)
        guard case .serverError(let code, _, 401) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(code == "use_dpop_nonce")
        #expect(error.recoverySuggestion == .retryable(condition: .immediately))
        let authorizeRequests = stub.sent.filter { $0.url.path.hasSuffix("/oauth/authorize") }
        #expect(authorizeRequests.count == 2)
        // The retry carried the nonce the first answer gave.
        let retryNonce = authorizeRequests.last?.header("DPoP").flatMap { try? DPoPProof(parsing: $0) }?.nonce
        #expect(retryNonce == "nonce-1")
    }

    @Test("token endpoint: a restless nonce, a 5xx, a truncated JSON, and the listener sees each")
    @MainActor
    func tokenEndpointFaults() async throws {
        let stub = StubTransport()
        let listener = RecordingListener()
        let counter = Counter()
        let base = StubFlow.base
        let configuration = HaapiConfiguration(
            name: "fault-" + UUID().uuidString, clientId: "c", baseURL: base,
            tokenEndpointURL: base.appendingPathComponent("oauth/token"),
            authorizationEndpointURL: base, appRedirect: "app://x", transport: stub,
            tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256),
            tokenEndpointResponseListener: listener)
        let oauth = OAuthTokenManager(oauthTokenConfiguration: configuration)
        let dpop = Dpop(key: SoftwareP256SigningKey())

        stub.on(path: "/oauth/token") { request in
            StubTransport.json(request, 400, ["error": "use_dpop_nonce"], headers: ["DPoP-Nonce": "n\(counter.next())"])
        }
        guard case .errorToken(let nonceError) = await oauth.fetchAccessToken(with: "code", dpop: dpop) else {
            Issue.record("no error token")
            return
        }
        #expect(nonceError.error == "use_dpop_nonce")
        #expect(stub.sentCount == 2)
        #expect(listener.tokenErrors.last?.headerFields["dpop-nonce"] == "n2")  // the listener sees the final answer

        stub.on(path: "/oauth/token") { StubTransport.raw($0, 503, contentType: "text/html", "busy") }
        guard case .error(let busy) = await oauth.fetchAccessToken(with: "code", dpop: dpop),
            let busyError = busy as? HaapiError, case .serverError(_, _, 503) = busyError
        else {
            Issue.record("503 not reported")
            return
        }
        #expect(busyError.recoverySuggestion == .retryable(condition: .afterDelay))

        stub.on(path: "/oauth/token") {
            StubTransport.raw($0, 200, contentType: "application/json", #"{"access_token":"abc","tok"#)
        }
        guard case .error(let truncated) = await oauth.fetchAccessToken(with: "code", dpop: dpop),
            case .communication = truncated as? HaapiError
        else {
            Issue.record("truncated JSON not reported")
            return
        }
        #expect(listener.errors.count == 2)

        stub.on(path: "/oauth/token") {
            StubTransport.json(
                $0, 200, ["access_token": "abc", "token_type": "DPoP", "expires_in": 300, "refresh_token": "r1"])
        }
        let success = try await oauth.fetchAccessToken(with: "code", dpop: dpop).success()
        #expect(success.refreshToken == "r1")
        #expect(listener.successes.last?.dataAsDictionary["access_token"] as? String == "abc")
        #expect(listener.successes.last?.statusCode == 200)
        #if !HAAPI_ASYNC_HTTP_CLIENT
        #expect(listener.successes.last?.httpURLResponse?.statusCode == 200)
        #endif
    }

    @Test("a refresh response without a refresh token keeps the old one")
    func keepOldRefreshToken() async throws {
        let stub = StubTransport()
        stub.on(path: "/oauth/token") {
            StubTransport.json($0, 200, ["access_token": "new", "token_type": "DPoP", "expires_in": 300])
        }
        let oauth = OAuthTokenManager(oauthTokenConfiguration: StubFlow.configuration(stub))
        let refreshed = try await oauth.refreshAccessToken(with: "keep-me", dpop: Dpop(key: SoftwareP256SigningKey()))
            .success()
        #expect(refreshed.refreshToken == "keep-me")
        #expect(refreshed.accessToken == "new")
    }

    @Test("a rotated refresh token is never sent again")
    func rotatedNeverResent() async throws {
        let stub = StubTransport()
        let counter = Counter()
        stub.on(path: "/oauth/token") { request in
            let n = counter.next()
            return StubTransport.json(
                request, 200,
                ["access_token": .string("at\(n)"), "token_type": "DPoP", "refresh_token": .string("rt\(n)")])
        }
        let oauth = OAuthTokenManager(oauthTokenConfiguration: StubFlow.configuration(stub))
        let dpop = Dpop(key: SoftwareP256SigningKey())
        let first = try await oauth.refreshAccessToken(with: "rt0", dpop: dpop).success()
        let repeated = try await oauth.refreshAccessToken(with: "rt0", dpop: dpop).success()
        #expect(first.refreshToken == "rt1" && repeated.accessToken == first.accessToken)
        #expect(
            stub.sent.filter { String(decoding: $0.body ?? Data(), as: UTF8.self).contains("refresh_token=rt0") }.count
                == 1)
        _ = try await oauth.refreshAccessToken(with: "rt1", dpop: dpop).success()
        #expect(stub.sentCount == 2)
    }

    @Test("a HAAPI token with less than minTokenTTL left is renewed; one with more is reused")
    func minTokenTTL() async throws {
        for (lifetime, expectedRequests) in [(5, 3), (600, 1)] {
            let stub = StubTransport()
            stub.serveHaapiToken(lifetime: lifetime)
            let manager = try HaapiTokenManagerBuilder(
                tokenEndpoint: StubFlow.base.appendingPathComponent("oauth/token"), clientId: "c"
            )
            .setName("ttl-" + UUID().uuidString).setTransport(stub).setAttester(SoftwareAttester()).setHaapiTokenMinTTL(
                10
            ).build()
            for _ in 0..<3 { _ = try await manager.getHaapiTokenAsync() }
            #expect(
                stub.sent.filter { $0.url.path == "/oauth/token" }.count == expectedRequests, "lifetime \(lifetime)")
            await manager.close()
        }
    }

    @Test("a non-DPoP HAAPI token is refused: the SDK never sends a bearer HAAPI token")
    func bearerHaapiToken() async throws {
        let stub = StubTransport()
        stub.serveHaapiToken()
        stub.on(path: "/oauth/token", method: "POST") {
            StubTransport.json($0, 200, ["access_token": "t", "token_type": "Bearer", "expires_in": 600])
        }
        let manager = try HaapiTokenManagerBuilder(
            tokenEndpoint: StubFlow.base.appendingPathComponent("oauth/token"), clientId: "c"
        )
        .setName("bearer-" + UUID().uuidString).setTransport(stub).setAttester(SoftwareAttester()).build()
        do {
            _ = try await manager.getHaapiTokenAsync()
            Issue.record("a bearer HAAPI token was accepted")
        } catch {
            guard case .dpopProofFailure = error else {
                Issue.record("\(error)")
                return
            }
        }
        await manager.close()
    }

    @Test("zero, negative, infinite and NaN timeouts are clamped instead of trapping")
    func oddTimeouts() async throws {
        let url = URL(string: "http://127.0.0.1:9/")!
        #expect(HTTPRequest(method: "GET", url: url, timeout: -1).deadline(default: 30) == 0.001)
        #expect(HTTPRequest(method: "GET", url: url, timeout: .infinity).deadline(default: 30) == 86_400)
        #expect(HTTPRequest(method: "GET", url: url, timeout: .nan).deadline(default: 30) == 30)
        #expect(HTTPRequest(method: "GET", url: url).deadline(default: 0) == 0.001)
        let silent = try await RawSocketServer(reply: "", thenClose: false)
        defer { Task { await silent.stop() } }
        for transport in [try platformTransport(timeout: -5), try platformTransport(timeout: 0)] {
            await #expect(throws: TransportError.self) {
                try await transport.send(HTTPRequest(method: "GET", url: silent.url, timeout: -1))
            }
        }
    }

    @Test("the platform's transport times out against a server that never answers")
    func realTimeout() async throws {
        let silent = try await RawSocketServer(reply: "", thenClose: false)
        defer { Task { await silent.stop() } }
        let transport = try platformTransport(timeout: 1)
        let started = Date()
        do {
            _ = try await transport.send(HTTPRequest(method: "GET", url: silent.url))
            Issue.record("a silent server produced a response")
        } catch {
            #expect(error == .timedOut(after: 1))
        }
        // Bounded, not timed: a loaded CI machine can take several seconds to schedule the deadline.
        #expect(Date().timeIntervalSince(started) < 20)
    }

    @Test("the platform's transport reports a body cut short by the server")
    func realTruncation() async throws {
        let reply = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"access_token\":"
        let cutting = try await RawSocketServer(reply: reply, thenClose: true)
        defer { Task { await cutting.stop() } }
        let transport = try platformTransport(timeout: 3)
        do {
            let response = try await transport.send(HTTPRequest(method: "GET", url: cutting.url))
            Issue.record("a truncated body was delivered as complete: \(response.body.count) bytes")
        } catch {
            switch error {
            case .answerLost: break
            default: Issue.record("unexpected \(error)")
            }
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}

/// Main-actor isolated, like every listener: the manager calls it there, so plain stored arrays will do.
final class RecordingListener: TokenEndpointResponseListener {
    var successes: [OAuthTokenManager.SuccessTokenHTTPURLResponseContent] = []
    var tokenErrors: [OAuthTokenManager.ErrorTokenHTTPURLResponseContent] = []
    var errors: [ErrorHTTPURLResponseContent] = []

    func onSuccess(_ value: OAuthTokenManager.SuccessTokenHTTPURLResponseContent) { successes.append(value) }
    func onTokenError(_ value: OAuthTokenManager.ErrorTokenHTTPURLResponseContent) { tokenErrors.append(value) }
    func onError(_ value: ErrorHTTPURLResponseContent) { errors.append(value) }
}
