import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

@Suite("HaapiConfiguration.discover (issue 17, item 4)", .timeLimit(.minutes(3)))
struct DiscoveryTests {
    @Test("a configuration from the dev server's discovery document logs in and gets DPoP tokens")
    func discoverAndLogIn() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = try await HaapiConfiguration.discover(
            issuer: server.base, clientId: "haapi-demo", appRedirect: "app://haapi",
            name: "discover-" + UUID().uuidString,
            authorizationParametersProvider: { OAuthAuthorizationParameters(scopes: ["openid"]) },
            attester: SoftwareAttester(),
            tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256))
        #expect(configuration.tokenEndpointURL == server.base.appendingPathComponent("oauth/token"))
        #expect(configuration.authorizationEndpointURL == server.base.appendingPathComponent("oauth/authorize"))
        #expect(configuration.revocationEndpointURL == server.base.appendingPathComponent("oauth/revoke"))
        #expect(configuration.introspectionEndpointURL == server.base.appendingPathComponent("oauth/introspect"))
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let tokens = try await OAuthTokenManager(oauthTokenConfiguration: configuration)
            .fetchAccessToken(with: try await manager.passwordLogin(), dpop: manager.dpop).success()
        #expect(tokens.tokenType == "DPoP")
        await manager.close()
    }

    static func serve(_ document: String, status: Int = 200) -> StubTransport {
        let stub = StubTransport()
        stub.on(path: "/.well-known/openid-configuration") {
            StubTransport.raw($0, status, contentType: "application/json", document)
        }
        return stub
    }

    @Test(
        "a document for another issuer, without the endpoints, with a non-http endpoint, or a 404 is refused",
        arguments: [
            (
                #"{"issuer":"https://evil.example","authorization_endpoint":"https://evil.example/a","token_endpoint":"https://evil.example/t"}"#,
                200, "names the issuer https://evil.example"
            ),
            (
                #"{"authorization_endpoint":"https://as.example/a","token_endpoint":"https://as.example/t"}"#, 200,
                "names no issuer"
            ),
            (
                #"{"issuer":"https://as.example","token_endpoint":"https://as.example/t"}"#, 200,
                "lacks authorization_endpoint"
            ),
            (
                #"{"issuer":"https://as.example","authorization_endpoint":"javascript:alert(1)","token_endpoint":"https://as.example/t"}"#,
                200, "authorization_endpoint in the discovery document is not"
            ),
            (
                #"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/a","token_endpoint":"/t"}"#,
                200, "token_endpoint in the discovery document is not"
            ),
            ("not found", 404, "404"),
        ])
    func refused(document: String, status: Int, expected: String) async {
        do {
            _ = try await HaapiConfiguration.discover(
                issuer: URL(string: "https://as.example")!, clientId: "c", appRedirect: "app://c",
                transport: Self.serve(document, status: status))
            Issue.record("accepted: \(document)")
        } catch {
            #expect("\(error.errorDescription) \(error)".contains(expected), "\(error)")
        }
    }

    @Test("the issuer may be given with or without a trailing slash")
    func trailingSlash() async throws {
        let document =
            #"{"issuer":"https://as.example","authorization_endpoint":"https://as.example/a","token_endpoint":"https://as.example/t"}"#
        for issuer in ["https://as.example", "https://as.example/"] {
            let metadata = try await ServerMetadata.fetch(issuer: URL(string: issuer)!, transport: Self.serve(document))
            #expect(
                metadata.tokenEndpoint.absoluteString == "https://as.example/t" && metadata.revocationEndpoint == nil)
        }
    }
}
