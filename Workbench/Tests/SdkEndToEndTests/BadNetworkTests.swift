import Foundation
@_spi(Tooling) import HaapiSdk
import NetworkFaults
import Testing

#if HAAPI_ASYNC_HTTP_CLIENT
import HaapiAsyncHTTPClient
#endif

/// The SDK on a phone's network (issue 52): the dev server behind `NetworkFaultProxy`, whose URL is the server's
/// public URL, with each fault put on chosen requests. Every test runs with both transports: URLSession (the
/// Apple transport, FoundationNetworking's here) and, on Linux, AsyncHTTPClient.
@Suite("The SDK on a bad network", .timeLimit(.minutes(3)))
struct BadNetworkTests {
    /// The transports under test, by name.
    static let transports: [String] = {
        #if HAAPI_ASYNC_HTTP_CLIENT
        ["URLSession", "AsyncHTTPClient"]
        #else
        ["URLSession"]
        #endif
    }()

    static func transport(_ name: String, timeout: TimeInterval = 30) throws -> any HTTPTransport {
        #if HAAPI_ASYNC_HTTP_CLIENT
        if name == "AsyncHTTPClient" { return try AsyncHTTPClientTransport(timeout: timeout) }
        #endif
        return URLSessionTransport(timeout: timeout)
    }

    static let demoUser = ["userName": "demouser", "password": "Password1"]

    /// A new flow's password form, through the selector.
    static func passwordForm(_ manager: HaapiManager) async throws -> FormActionModel {
        let form = try await manager.startAuthenticator("password")
        return try #require((form as? InteractiveFormStep)?.actions.first as? FormAction).model
    }

    static func isPasswordPost(_ request: NetworkFaultProxy.Request) -> Bool {
        request.method == "POST" && request.target.contains("/authn/authenticate/password")
    }

    @Test(
        "every third GET's answer lost after the server answered it: 8 logins of 8 get tokens, each lost GET asked again with a new proof",
        arguments: transports)
    func lostGetAnswersAreAskedAgain(transportName: String) async throws {
        let tally = FaultCounter()
        let proxy = try NetworkFaultProxy { request in
            guard request.method == "GET" else { return .pass }
            return tally.next("GET") % 3 == 0 ? .resetAfterForwarding : .pass
        }
        defer { proxy.stop() }
        let server = try await SdkTestServer(behind: proxy)
        defer { Task { await server.running.stop() } }
        let transport = try Self.transport(transportName)
        var signedIn = 0
        for _ in 0..<8 {
            let configuration = server.configuration(transport: transport)
            let manager = try HaapiManager(haapiConfiguration: configuration)
            let code: String
            do { code = try await manager.passwordLogin() } catch {
                Issue.record(
                    "\(error): \(proxy.log.suffix(8).map { "\($0.request.method) \($0.request.target.prefix(60)) \($0.fault)" })"
                )
                throw error
            }
            let tokens = try await OAuthTokenManager(oauthTokenConfiguration: configuration)
                .fetchAccessToken(with: code, dpop: manager.dpop).success()
            if tokens.tokenType == "DPoP" { signedIn += 1 }
            await manager.close()
        }
        #expect(signedIn == 8)
        let resets = proxy.log.filter { $0.fault == .resetAfterForwarding }
        #expect(resets.count >= 5, "the rule reset \(resets.count) answers")
        // Each reset GET came again, right after, to the same target: and the server took it (a replayed proof
        // would have been refused, so the second carried a new one).
        let log = proxy.log
        for (index, entry) in log.enumerated() where entry.fault == .resetAfterForwarding {
            #expect(
                log.indices.contains(index + 1) && log[index + 1].request.target == entry.request.target
                    && log[index + 1].request.method == "GET", "no second GET after \(entry.request.target)")
        }
        // A POST is never sent twice.
        let posts = log.filter { $0.request.method == "POST" }.map(\.request.target)
        #expect(posts.filter { $0.contains("/authn/authenticate/password") }.count == 8)
    }

    @Test(
        "a POST whose answer was lost is not sent again: the error says the server may have processed it",
        arguments: transports)
    func lostPostAnswerIsNamed(transportName: String) async throws {
        let proxy = try NetworkFaultProxy { Self.isPasswordPost($0) ? .resetAfterForwarding : .pass }
        defer { proxy.stop() }
        let server = try await SdkTestServer(behind: proxy)
        defer { Task { await server.running.stop() } }
        let manager = try HaapiManager(
            haapiConfiguration: server.configuration(transport: try Self.transport(transportName)))
        defer { Task { await manager.close() } }
        let result = await manager.submitForm(try await Self.passwordForm(manager), parameters: Self.demoUser)
        let error = try #require(result.haapiError)
        guard case .communication(_, let cause as TransportError) = error, case .answerLost = cause else {
            Issue.record(
                "expected a lost answer, got \(error); connections \(proxy.connectionsAccepted) \(proxy.log.map { "\($0.request.method) \($0.request.target.prefix(50)) \($0.fault)" })"
            )
            return
        }
        #expect(cause.mayHaveReachedServer)
        #expect(error.recoverySuggestion == .retryable(condition: .immediately))
        #expect(cause.localizedDescription.contains("the server may have acted on the request"))
        #expect(proxy.log.filter { Self.isPasswordPost($0.request) }.count == 1, "the POST was sent again")
    }

    @Test("a server that cannot be connected to is could-not-connect, retryable after a delay", arguments: transports)
    func couldNotConnect(transportName: String) async throws {
        // A port that was just free: nothing listens there.
        let closed = try NetworkFaultProxy { _ in .pass }
        let port = closed.port
        closed.stop()
        try await Task.sleep(for: .milliseconds(100))
        let base = try #require(URL(string: "http://127.0.0.1:\(port)"))
        let transport = try Self.transport(transportName, timeout: 5)
        do {
            _ = try await transport.send(HTTPRequest(method: "GET", url: base.appendingPathComponent("health")))
            Issue.record("a closed port answered")
        } catch {
            guard case .couldNotConnect = error else {
                Issue.record("expected couldNotConnect, got \(error)")
                return
            }
            #expect(!error.mayHaveReachedServer)
            let wrapped = HaapiError.communication(message: error.description, cause: error)
            #expect(wrapped.recoverySuggestion == .retryable(condition: .afterDelay))
        }
    }

    @Test(
        "a stalled answer ends the request at the configured deadline; cancelling a login mid-request ends it at once",
        arguments: transports)
    func stalledServerAndCancel(transportName: String) async throws {
        let proxy = try NetworkFaultProxy { Self.isPasswordPost($0) ? .stall : .pass }
        defer { proxy.stop() }
        let server = try await SdkTestServer(behind: proxy)
        defer { Task { await server.running.stop() } }
        let configuration = server.configuration(transport: try Self.transport(transportName), requestTimeout: 5)
        let manager = try HaapiManager(haapiConfiguration: configuration)
        defer { Task { await manager.close() } }
        let action = try await Self.passwordForm(manager)
        let parameters = Self.demoUser

        let started = Date()
        let result = await manager.submitForm(action, parameters: parameters)
        let waited = Date().timeIntervalSince(started)
        guard case .communication(_, let cause as TransportError)? = result.haapiError,
            case .timedOut(let seconds) = cause
        else {
            Issue.record("expected a timeout, got \(result)")
            return
        }
        #expect(seconds == 5)
        // Bounded, not timed: the deadline held (a busy CI machine schedules late, never early).
        #expect(waited >= 4.9 && waited < 20, "the stalled request ended after \(waited) s")

        // Cancelled while the server stalls: the task ends without waiting for the deadline.
        let slow = try HaapiManager(
            haapiConfiguration: server.configuration(
                transport: try Self.transport(transportName), requestTimeout: 60))
        defer { Task { await slow.close() } }
        let slowAction = try await Self.passwordForm(slow)
        let login = Task { await slow.submitForm(slowAction, parameters: parameters) }
        try await Task.sleep(for: .milliseconds(500))
        let cancelledAt = Date()
        login.cancel()
        let cancelled = await login.value
        #expect(Date().timeIntervalSince(cancelledAt) < 10, "cancel took \(Date().timeIntervalSince(cancelledAt)) s")
        guard case .communication(_, let reason as TransportError)? = cancelled.haapiError, reason == .cancelled else {
            Issue.record("expected a cancelled request, got \(cancelled)")
            return
        }
    }

    @Test(
        "a cut answer: a GET's is asked again and the login goes on; a POST's is a lost answer; a trickled answer arrives",
        arguments: transports)
    func truncatedAndTrickled(transportName: String) async throws {
        let tally = FaultCounter()
        let proxy = try NetworkFaultProxy { request in
            if request.method == "GET", request.target.contains("/authn/authenticate/password") {
                return tally.next("form") == 1 ? .truncate : .trickle(bytes: 97, interval: 0.005)
            }
            if Self.isPasswordPost(request) { return tally.next("post") == 1 ? .truncate : .pass }
            return .pass
        }
        defer { proxy.stop() }
        let server = try await SdkTestServer(behind: proxy)
        defer { Task { await server.running.stop() } }
        let configuration = server.configuration(transport: try Self.transport(transportName))
        let manager = try HaapiManager(haapiConfiguration: configuration)
        defer { Task { await manager.close() } }
        let action = try await Self.passwordForm(manager)
        let parameters = Self.demoUser
        let cut = await manager.submitForm(action, parameters: parameters)
        guard case .communication(_, let cause as TransportError)? = cut.haapiError, case .answerLost = cause else {
            Issue.record("expected a lost answer for the cut POST, got \(cut)")
            return
        }
        // The user tries again in a new flow; the form's GET is trickled this time, and arrives whole.
        let again = try HaapiManager(
            haapiConfiguration: server.configuration(transport: try Self.transport(transportName)))
        defer { Task { await again.close() } }
        _ = try await again.passwordLogin()
        let formGets = proxy.log.filter {
            $0.request.method == "GET" && $0.request.target.contains("/authn/authenticate/password")
        }
        #expect(formGets.first?.fault == .truncate && formGets.count >= 3, "\(formGets.map(\.fault))")
    }

    @Test(
        "a captive portal's page (200 text/html) to a HAAPI request is a clear error; a 503 carries its Retry-After",
        arguments: transports)
    func captivePortalAndUnavailable(transportName: String) async throws {
        let tally = FaultCounter()
        let proxy = try NetworkFaultProxy { request in
            guard request.target.contains("/oauth/authorize") else { return .pass }
            return tally.next("authorize") == 1 ? .captivePortal : .unavailable(status: 503, retryAfter: "7")
        }
        defer { proxy.stop() }
        let server = try await SdkTestServer(behind: proxy)
        defer { Task { await server.running.stop() } }
        let manager = try HaapiManager(
            haapiConfiguration: server.configuration(transport: try Self.transport(transportName)))
        defer { Task { await manager.close() } }
        let portal = try #require(await manager.start().haapiError)
        guard case .communication(let message, _) = portal else {
            Issue.record("\(portal)")
            return
        }
        #expect(message.contains("web page") && message.contains("captive portal"), "\(message)")

        let busy = try #require(await manager.start().haapiError)
        guard case .communication(_, let unavailable as ServerUnavailable) = busy else {
            Issue.record("\(busy)")
            return
        }
        #expect(unavailable == ServerUnavailable(statusCode: 503, retryAfter: 7))
        #expect(busy.recoverySuggestion == .retryable(condition: .afterDelay))
    }

    /// A switch the test turns on and the proxy's rule turns off: the next token request loses its answer.
    final class Trap: @unchecked Sendable {
        private let lock = NSLock()
        private var armed = false
        func arm() { lock.withLock { armed = true } }
        func spring() -> Bool {
            lock.withLock {
                defer { armed = false }
                return armed
            }
        }
    }

    @Test(
        "a refresh whose answer was lost: the same refresh token again within the server's reuse grace keeps the session; after it, the seed's ended-session error",
        arguments: transports)
    func lostRefreshAnswer(transportName: String) async throws {
        let trap = Trap()
        let proxy = try NetworkFaultProxy { request in
            request.method == "POST" && request.target == "/oauth/token" && trap.spring()
                ? .resetAfterForwarding : .pass
        }
        defer { proxy.stop() }
        // Long enough for a loaded CI machine to retry within it, short enough to wait out.
        let server = try await SdkTestServer(behind: proxy) { $0.lifetimes.refreshTokenReuseGrace = 5 }
        defer { Task { await server.running.stop() } }
        let configuration = server.configuration(transport: try Self.transport(transportName))
        let manager = try HaapiManager(haapiConfiguration: configuration)
        defer { Task { await manager.close() } }
        let oauth = OAuthTokenManager(oauthTokenConfiguration: configuration)
        let first = try await oauth.fetchAccessToken(with: try await manager.passwordLogin(), dpop: manager.dpop)
            .success()
        let refreshToken = try #require(first.refreshToken)

        // The server rotates the token; the answer is lost on the way back.
        trap.arm()
        guard case .error(let lost) = await oauth.refreshAccessToken(with: refreshToken),
            case .communication(_, let cause as TransportError)? = lost as? HaapiError, case .answerLost = cause
        else {
            Issue.record("expected a lost answer")
            return
        }
        // Within the grace: the app refreshes with the token it still holds, and the session goes on.
        let again = try await oauth.refreshAccessToken(with: refreshToken).success()
        let current = try #require(again.refreshToken)
        #expect(current != refreshToken)
        #expect(try await oauth.refreshAccessToken(with: current).success().accessToken != again.accessToken)

        // Lost again, and this time the app comes back after the grace: the session has ended.
        let latest = try #require(await oauth.refreshAccessToken(with: current).success().refreshToken)
        trap.arm()
        guard case .error = await oauth.refreshAccessToken(with: latest) else {
            Issue.record("the trapped refresh got an answer")
            return
        }
        try await Task.sleep(for: .milliseconds(5_500))
        let ended = await oauth.refreshAccessToken(with: latest)
        guard case .errorToken(let refusal) = ended else {
            Issue.record("expected invalid_grant, got \(ended)")
            return
        }
        #expect(refusal.error == "invalid_grant")
        #expect(
            HaapiError.serverError(error: refusal.error, errorDescription: "", statusCode: 400).recoverySuggestion
                == .newHaapiFlow)
        // Not stuck: the manager answers the next call at once, with the same refusal.
        guard case .errorToken = await oauth.refreshAccessToken(with: latest) else {
            Issue.record("a second call after the session ended did not get the refusal")
            return
        }
    }
}
