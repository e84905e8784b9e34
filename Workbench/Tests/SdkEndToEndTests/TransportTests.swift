import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

@Suite("Transports against the dev server", .timeLimit(.minutes(3)))
struct TransportTests {
    @Test("the platform's transport (URLSession on Apple, AsyncHTTPClient on Linux) carries a whole login")
    func platformTransportLogin() async throws {
        let server = try await SdkTestServer.shared.get()
        // A generous deadline: the password check is PBKDF2 with 600,000 iterations, a second or more in a
        // debug build, queued behind the other suites' logins on the shared server's two hashing threads.
        let configuration = server.configuration(transport: try platformTransport(timeout: 60))
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let tokens = try await OAuthTokenManager(oauthTokenConfiguration: configuration)
            .fetchAccessToken(with: try await manager.passwordLogin(), dpop: manager.dpop).success()
        #expect(tokens.tokenType == "DPoP")
        await manager.close()
    }

    @Test("a 401 with WWW-Authenticate ends in a response or a timeout, never a hang")
    func challengeNeverHangs() async throws {
        let server = try await SdkTestServer.shared.get()
        let transport = try platformTransport(timeout: 5)
        let request = HTTPRequest(
            method: "GET", url: server.base.appendingPathComponent("oauth/authorize"),
            headers: [("Accept", "application/vnd.auth+json"), ("Authorization", "DPoP not-a-token")])
        let started = Date()
        do {
            let response = try await transport.send(request)
            #expect(response.statusCode == 401)
            #expect(response.header("WWW-Authenticate")?.contains("invalid_token") == true)
        } catch {
            // URLSession may wait for a credential that never comes, and a loaded test machine can be slow;
            // either way the deadline ends the wait.
            #expect(error == .timedOut(after: 5), "\(error)")
        }
        #expect(Date().timeIntervalSince(started) < 9)
    }

    @Test("headers from HttpHeadersProvider reach the server; they cannot replace the protocol's headers")
    func headersProvider() async throws {
        let stub = StubTransport()
        stub.serveHaapiToken()
        stub.on(path: "/oauth/authorize") {
            StubTransport.raw(
                $0, 200, contentType: "application/vnd.auth+json", #"{"type":"authentication-step","actions":[]}"#)
        }
        let base = URL(string: "https://headers.example")!
        let configuration = HaapiConfiguration(
            name: "headers-" + UUID().uuidString, clientId: "c", baseURL: base,
            tokenEndpointURL: base.appendingPathComponent("oauth/token"),
            authorizationEndpointURL: base.appendingPathComponent("oauth/authorize"), appRedirect: "app://c",
            httpHeadersProvider: {
                ["X-Trace-Id": "trace-1", "Authorization": "Bearer hijack", "Accept": "text/html"]
            },
            transport: stub, attester: SoftwareAttester(),
            tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256))
        let manager = try HaapiManager(haapiConfiguration: configuration)
        _ = try await manager.start().step()
        let authorize = try #require(stub.sent.last { $0.url.path.hasSuffix("/oauth/authorize") })
        #expect(authorize.header("X-Trace-Id") == "trace-1")
        #expect(authorize.header("Authorization") == "DPoP haapi-at")
        #expect(authorize.header("Accept") == "application/vnd.auth+json")
        let proof = try DPoPProof(parsing: try #require(authorize.header("DPoP")))
        #expect(proof.ath == Dpop.accessTokenHash("haapi-at"))
        #expect(proof.htm == "GET" && proof.htu == base.appendingPathComponent("oauth/authorize").absoluteString)
        let query = try #require(URLComponents(url: authorize.url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(query.contains(URLQueryItem(name: "client_id", value: "c")))
        #expect(query.contains(URLQueryItem(name: "response_type", value: "code")))
        #expect(query.contains(URLQueryItem(name: "redirect_uri", value: "app://c")))
        await manager.close()
    }

    @Test("start() sends scopes, acr values, nonce, PKCE and extra parameters; extras cannot override the SDK's")
    func authorizationParameters() async throws {
        let stub = StubTransport()
        stub.serveHaapiToken()
        stub.on(path: "/oauth/authorize") {
            StubTransport.raw(
                $0, 200, contentType: "application/vnd.auth+json", #"{"type":"authentication-step","actions":[]}"#)
        }
        let base = URL(string: "https://parameters.example")!
        let manager = try HaapiManager(
            haapiConfiguration: HaapiConfiguration(
                name: "parameters-" + UUID().uuidString, clientId: "c", baseURL: base,
                tokenEndpointURL: base.appendingPathComponent("oauth/token"),
                authorizationEndpointURL: base.appendingPathComponent("oauth/authorize"), appRedirect: "app://c",
                transport: stub,
                attester: SoftwareAttester(), tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256)))
        let pkce = PKCE()
        _ = try await manager.start(
            parameters: OAuthAuthorizationParameters(
                scopes: ["openid", "email"], nonce: "n-1", acrValues: ["urn:acr:password"],
                codeChallenge: pkce.codeChallenge,
                extraRequestParameters: ["prompt": "login", "client_id": "evil"])
        ).step()
        let authorize = try #require(stub.sent.last { $0.url.path.hasSuffix("/oauth/authorize") })
        let items = try #require(URLComponents(url: authorize.url, resolvingAgainstBaseURL: false)?.queryItems)
        // The query is form-encoded (RFC 6749 Appendix B): '+' is a space.
        func value(_ name: String) -> [String] {
            items.filter { $0.name == name }.compactMap { $0.value?.replacingOccurrences(of: "+", with: " ") }
        }
        #expect(value("scope") == ["openid email"])
        #expect(value("acr_values") == ["urn:acr:password"])
        #expect(value("nonce") == ["n-1"])
        #expect(value("code_challenge") == [pkce.codeChallenge] && value("code_challenge_method") == ["S256"])
        #expect(value("prompt") == ["login"])
        #expect(value("client_id") == ["c"])
        await manager.close()
    }
}
