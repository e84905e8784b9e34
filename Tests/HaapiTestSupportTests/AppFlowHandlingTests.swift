import Foundation
@_spi(Tooling) import HaapiSdk
import HaapiTestSupport
import Testing

/// What an app's own unit test looks like with the test helpers (docs/SDK.md shows this one): the app's flow
/// handling against a scripted list of representations, no server.
@Suite("HaapiTestSupport: an app's flow handling without a server")
struct AppFlowHandlingTests {
    /// The app's code under test: fills a login form, and stops at the code.
    static func signIn(_ manager: HaapiManager) async -> String? {
        var result = await manager.start()
        for _ in 0..<5 {
            guard case .representation(let step) = result else { return nil }
            if let done = step as? OAuthAuthorizationResponseStep {
                return done.oauthAuthorizationResponseProperties.code
            }
            guard let form = (step as? InteractiveFormStep)?.formActions.first else { return nil }
            result = await manager.submitForm(form.model, parameters: ["userName": "alice", "password": "pw"])
        }
        return nil
    }

    static let login = #"""
        {"type":"authentication-step","actions":[{"template":"form","kind":"login","model":{"href":"/login","method":"POST",
        "type":"application/x-www-form-urlencoded","fields":[{"name":"userName","type":"username"},{"name":"password","type":"password"}]}}]}
        """#
    static let done = #"{"type":"oauth-authorization-response","properties":{"code":"code-1"}}"#

    @Test("a scripted login: the app submits the form it was given and gets the code, then tokens")
    func scriptedLogin() async throws {
        let (accessor, transport) = try await InternalTestUtility.accessor(steps: [Self.login, Self.done])
        let manager = accessor.haapiManager
        let code = await Self.signIn(manager)
        #expect(code == "code-1")
        // What the app sent: the form to the form's address, with what it filled in.
        let sent = await transport.requests.filter { $0.url.path == "/login" }
        #expect(
            sent.count == 1 && String(decoding: sent.first?.body ?? Data(), as: UTF8.self).contains("userName=alice"))
        let tokens = await accessor.oAuthTokenManager.fetchAccessToken(with: try #require(code), dpop: manager.dpop)
        guard case .successfulToken(let token) = tokens else {
            Issue.record("\(tokens)")
            return
        }
        #expect(token.accessToken == "test-access-token")
        // The PKCE verifier of the flow's challenge went with the code, found through the shared configuration.
        let redeem = await transport.requests.last {
            String(decoding: $0.body ?? Data(), as: UTF8.self).contains("grant_type=authorization_code")
        }
        let redeemed = String(decoding: redeem?.body ?? Data(), as: UTF8.self)
        #expect(redeemed.contains("code_verifier="), "\(redeemed)")
        await manager.close()
    }

    @Test("a scripted problem reaches the app as the typed problem; typed models from JSON literals")
    func problemsAndModels() async throws {
        let wrong = #"{"type":"https://curity.se/problems/incorrect-credentials","title":"Incorrect credentials"}"#
        let (manager, transport) = try await InternalTestUtility.haapiManager(steps: [Self.login, wrong])
        _ = await manager.start()
        let step = try IdsvrHaapiSdkTestUtils.step(json: Self.login)
        let form = try #require((step as? InteractiveFormStep)?.formActions.first)
        let answer = await manager.submitForm(form.model, parameters: ["userName": "alice", "password": "nope"])
        guard case .problem(let problem) = answer else {
            Issue.record("\(answer)")
            return
        }
        #expect(problem.type == .incorrectCredentialsProblem)
        #expect(await transport.remaining == 0)
        #expect(try IdsvrHaapiSdkTestUtils.problem(json: wrong).type == .incorrectCredentialsProblem)
        if case .errorToken(let error) = IdsvrHaapiSdkTestUtils.tokenResponse(json: #"{"error":"invalid_grant"}"#) {
            #expect(error.error == "invalid_grant")
        } else {
            Issue.record("not an OAuth error")
        }
        await manager.close()
    }
}
