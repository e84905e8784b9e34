import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

/// Issue 12, item 13: the HAAPI token, the session, proofs and form values go only to the configured server.
@Suite("Credentials stay with the configured origin", .timeLimit(.minutes(3)))
struct CredentialOriginTests {
    /// A login step with a form to each of `actions` and a link to `link`.
    static func loginStep(actions: [String], link: String) -> String {
        let forms = actions.map { action in
            #"{"template":"form","kind":"login","model":{"href":"\#(action)","method":"POST","type":"application/x-www-form-urlencoded","#
                + #""fields":[{"name":"userName","type":"username"},{"name":"password","type":"password"}]}}"#
        }
        return #"{"type":"authentication-step","actions":[\#(forms.joined(separator: ","))],"#
            + #""links":[{"href":"\#(link)","rel":"help","type":"application/vnd.auth+json"}]}"#
    }

    @Test("a step that posts or links to another origin gets nothing: no token, no proof, no session, no password")
    func foreignOrigin() async throws {
        let stub = StubTransport()
        stub.serveHaapiToken()
        let configuration = StubFlow.configuration(stub)
        let base = configuration.baseURL.absoluteString
        stub.on(path: "/oauth/authorize") { request in
            StubTransport.raw(
                request, 200, contentType: "application/vnd.auth+json",
                Self.loginStep(
                    actions: ["https://attacker.example/collect", "/authn/login"], link: "https://attacker.example/help"
                ),
                headers: ["Set-Session-Id": "flow-1"])
        }
        stub.on(path: "/authn/login") { request in
            StubTransport.raw(
                request, 200, contentType: "application/vnd.auth+json", #"{"type":"completed-with-success"}"#)
        }
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let first = await manager.start()
        guard case .representation(let step) = first, let form = (step.actions.first as? FormAction)?.model else {
            Issue.record("no login step: \(first)")
            return
        }
        let posted = await manager.submitForm(form, parameters: ["userName": "demouser", "password": "Password1"])
        guard case .error(let error) = posted, case .illegalState(let message) = error as? HaapiError else {
            Issue.record("a form to another origin was sent: \(posted)")
            return
        }
        #expect(message.contains("attacker.example"))
        let link = try #require(step.links.first)
        guard case .error = await manager.followLink(link) else {
            Issue.record("a link to another origin was followed")
            return
        }
        #expect(stub.sent.allSatisfy { $0.url.absoluteString.hasPrefix(base) }, "\(stub.sent.map(\.url))")
        #expect(!stub.sent.contains { $0.url.host == "attacker.example" })

        // The same form on the configured server is sent, with its credentials.
        let local = try #require((step.actions.last as? FormAction)?.model)
        _ = await manager.submitForm(local, parameters: ["userName": "demouser", "password": "Password1"])
        let sent = try #require(stub.sent.last { $0.url.path == "/authn/login" })
        #expect(
            sent.header("Authorization")?.hasPrefix("DPoP ") == true && sent.header("DPoP") != nil
                && sent.header("Session-Id") == "flow-1")
        await manager.close()
    }

    @Test("start sends a PKCE challenge (S256) unless the app brings its own; the verifier follows the code")
    func pkceByDefault() async throws {
        let stub = StubTransport()
        stub.serveHaapiToken()
        stub.on(path: "/oauth/authorize") { request in
            StubTransport.raw(
                request, 200, contentType: "application/vnd.auth+json",
                #"{"type":"oauth-authorization-response","properties":{"code":"the-code"}}"#)
        }
        let configuration = StubFlow.configuration(stub)
        let manager = try HaapiManager(haapiConfiguration: configuration)
        _ = await manager.start()
        let authorizeURL = try #require(stub.sent.last { $0.url.path.hasSuffix("/oauth/authorize") }?.url)
        let query = try #require(URLComponents(url: authorizeURL, resolvingAgainstBaseURL: false)?.queryItems)
        let challenge = try #require(query.first { $0.name == "code_challenge" }?.value)
        #expect(query.first { $0.name == "code_challenge_method" }?.value == "S256")

        stub.on(path: "/oauth/token") { request in
            StubTransport.json(request, 400, ["error": "invalid_grant"])
        }
        _ = await OAuthTokenManager(oauthTokenConfiguration: configuration).fetchAccessToken(
            with: "the-code", dpop: manager.dpop)
        let tokenRequest = try #require(stub.sent.last { $0.url.path.hasSuffix("/oauth/token") })
        let form = FormURLEncoding.decode(String(decoding: tokenRequest.body ?? Data(), as: UTF8.self)) ?? []
        let verifier = try #require(form.first { $0.name == "code_verifier" }?.value)
        #expect(PKCE.challenge(for: verifier) == challenge)

        // An app that brings its own challenge keeps its own verifier: the SDK sends none of its own.
        _ = await manager.start(parameters: OAuthAuthorizationParameters(codeChallenge: PKCE().codeChallenge))
        _ = await OAuthTokenManager(oauthTokenConfiguration: configuration).fetchAccessToken(
            with: "the-code", dpop: manager.dpop)
        let second = try #require(stub.sent.last { $0.url.path.hasSuffix("/oauth/token") })
        #expect(!(String(decoding: second.body ?? Data(), as: UTF8.self)).contains("code_verifier"))
        await manager.close()
    }
}
