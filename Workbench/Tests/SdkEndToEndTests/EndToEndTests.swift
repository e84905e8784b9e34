import Foundation
import HaapiRawClient
@_spi(Tooling) import HaapiSdk
import Testing

@testable import HaapiServer

/// The SDK against the dev server, in process on 127.0.0.1: every authenticator, attestation on and off,
/// the DCR fallback, bound and unbound tokens, nonce and legacy DPoP, refresh rotation and revocation.
@Suite("SDK end to end")
struct EndToEndTests {
    @Test("password login with attestation, nonces and bound codes; tokens are DPoP-bound; refresh rotates; revoke")
    func passwordBoundRefreshRevoke() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = server.configuration()
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let code = try await manager.passwordLogin()
        let oauth = OAuthTokenManager(oauthTokenConfiguration: configuration)
        let tokens = try await oauth.fetchAccessToken(with: code, dpop: manager.dpop).success()
        #expect(tokens.tokenType == "DPoP")
        #expect(tokens.idToken != nil)
        let refreshToken = try #require(tokens.refreshToken)

        let refreshed = try await oauth.refreshAccessToken(with: refreshToken).success()
        #expect(refreshed.accessToken != tokens.accessToken)
        let rotated = try #require(refreshed.refreshToken)
        #expect(rotated != refreshToken)

        // A refresh with another key is refused: the refresh token is bound to the flow's key.
        let thief = await oauth.refreshAccessToken(with: rotated, dpop: Dpop(key: SoftwareP256SigningKey()))
        guard case .errorToken(let refused) = thief else {
            Issue.record("a refresh with another key succeeded: \(thief)")
            return
        }
        #expect(refused.error == "invalid_grant" || refused.error == "invalid_dpop_proof")

        guard case .success = await oauth.revokeRefreshToken(rotated) else {
            Issue.record("revocation failed")
            return
        }
        guard case .errorToken(let afterRevoke) = await oauth.refreshAccessToken(with: rotated) else {
            Issue.record("a revoked refresh token still works")
            return
        }
        #expect(afterRevoke.error == "invalid_grant")
        await manager.close()
    }

    @Test("without the DPoP the bound code is refused, as the binding table says")
    func boundCodeWithoutDPoP() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = server.configuration()
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let code = try await manager.passwordLogin()
        // Only the proof is missing: the PKCE verifier the flow recorded is passed explicitly.
        let response = await OAuthTokenManager(oauthTokenConfiguration: configuration).fetchAccessToken(
            with: code, codeVerifier: manager.codeVerifier(for: code))
        guard case .errorToken(let error) = response else {
            Issue.record("expected invalid_dpop_proof, got \(response)")
            return
        }
        #expect(error.error == "invalid_dpop_proof")
        await manager.close()
    }

    @Test("unbound configuration: a DPoP is refused locally; without one the tokens are bearer tokens")
    func unbound() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = server.configuration(
            clientId: "sdk-unbound", redirect: "app://unbound", tokenBound: UnboundedTokenConfiguration())
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let code = try await manager.passwordLogin()
        let oauth = OAuthTokenManager(oauthTokenConfiguration: configuration)
        guard case .error(let error) = await oauth.fetchAccessToken(with: code, dpop: manager.dpop),
            case .invalidConfiguration = error as? HaapiError
        else {
            Issue.record("a DPoP with UnboundedTokenConfiguration was not refused")
            return
        }
        // Unbound apps pass no Dpop, so they hand the flow's PKCE verifier over themselves.
        let tokens = try await oauth.fetchAccessToken(with: code, codeVerifier: manager.codeVerifier(for: code))
            .success()
        #expect(tokens.tokenType?.lowercased() == "bearer")
        let refreshed = try await oauth.refreshAccessToken(with: try #require(tokens.refreshToken)).success()
        #expect(refreshed.tokenType?.lowercased() == "bearer")
        await manager.close()
    }

    @Test("server issues unbound codes, client binds anyway (row 2 of the table): the refresh token is bound")
    func unboundServerBoundClient() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = server.configuration(clientId: "sdk-unbound", redirect: "app://unbound")
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let oauth = OAuthTokenManager(oauthTokenConfiguration: configuration)
        let tokens = try await oauth.fetchAccessToken(with: try await manager.passwordLogin(), dpop: manager.dpop)
            .success()
        #expect(tokens.tokenType == "DPoP")
        let other = await oauth.refreshAccessToken(
            with: try #require(tokens.refreshToken), dpop: Dpop(key: SoftwareP256SigningKey()))
        guard case .errorToken = other else {
            Issue.record("a bound refresh token worked with another key")
            return
        }
        await manager.close()
    }

    @Test("legacy DPoP mode (no nonces) works end to end")
    func legacyMode() async throws {
        let server = try await SdkTestServer.shared.get()
        let recorder = RecordingTransport()
        let configuration = server.configuration(clientId: "sdk-legacy", redirect: "app://legacy", transport: recorder)
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let code = try await manager.passwordLogin()
        let tokens = try await OAuthTokenManager(oauthTokenConfiguration: configuration).fetchAccessToken(
            with: code, dpop: manager.dpop
        ).success()
        #expect(!tokens.accessToken.isEmpty)
        #expect(await recorder.requests.allSatisfy { $0.proofNonce == nil })
        await manager.close()
    }

    @Test(
        "nonce mode: after the first answer every proof carries the current nonce, so no use_dpop_nonce round trip happens"
    )
    func nonceSteadyState() async throws {
        let server = try await SdkTestServer.shared.get()
        let recorder = RecordingTransport()
        let configuration = server.configuration(transport: recorder)
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let code = try await manager.passwordLogin()
        _ = try await OAuthTokenManager(oauthTokenConfiguration: configuration)
            .fetchAccessToken(with: code, dpop: manager.dpop).success()
        let requests = await recorder.requests
        #expect(
            requests.filter(\.askedForNonce).isEmpty,
            "use_dpop_nonce answers: \(requests.filter(\.askedForNonce).map(\.path))")
        // challenge, CAT, HAAPI token; authorize, its redirection, the password option, the POST, the redirection back; the token.
        #expect(requests.count == 9, "\(requests.map { "\($0.method) \($0.path)" })")
        await manager.close()
    }

    @Test("auto-redirect off: redirection steps are returned to the caller")
    func autoRedirectOff() async throws {
        let server = try await SdkTestServer.shared.get()
        let manager = try HaapiManager(haapiConfiguration: server.configuration(isAutoRedirect: false))
        let first = try await manager.start().step(RedirectionStep.self)
        let next = try await manager.submitForm(first.action.model).step()
        #expect(next is AuthenticatorSelectorStep)
        await manager.close()
    }

    @Test("e-mail code authenticator")
    func emailCode() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = server.configuration()
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let ask = try await manager.startAuthenticator("email")
        let askForm = try #require((ask.actions.first as? FormAction)?.model)
        let codeStep = try await manager.submitForm(askForm, parameters: ["userName": "demouser"]).step()
        let codeForm = try #require((codeStep.actions.first as? FormAction)?.model)
        guard case .problem(let wrong) = await manager.submitForm(codeForm, parameters: ["otp": "not-a-code"]) else {
            Issue.record("a wrong code was accepted")
            return
        }
        #expect(wrong.type == .incorrectCredentialsProblem || wrong.type == .invalidInputProblem)
        let sent = try #require(await server.server.outbox.latestCode(for: "demouser"))
        let done = try await manager.submitForm(codeForm, parameters: ["otp": sent]).step(
            OAuthAuthorizationResponseStep.self)
        #expect(done.oauthAuthorizationResponseProperties.code != nil)
        await manager.close()
    }

    @Test("approve on another device: polling until approved")
    func approvalPolling() async throws {
        let server = try await SdkTestServer.shared.get()
        let manager = try HaapiManager(haapiConfiguration: server.configuration())
        let ask = try await manager.startAuthenticator("approve")
        let form = try #require((ask.actions.first as? FormAction)?.model)
        let pending = try await manager.submitForm(form, parameters: ["userName": "approver"]).step(PollingStep.self)
        #expect(pending.pollingProperties.status == .pending)
        let poll = try #require(pending.pollAction?.model)
        let stillPending = try await manager.submitForm(poll).step(PollingStep.self)
        #expect(stillPending.pollingProperties.status == .pending)
        let id = try #require(await server.server.pendingApprovals(for: "approver").first?.id)
        let approval = try await RecordingTransport.plain.send(
            HTTPRequest(
                method: "POST", url: server.base.appendingPathComponent("admin/approve"),
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data("approval=\(id)".utf8)))
        #expect(approval.statusCode == 200)
        var step = try await manager.submitForm(poll).step()
        if let done = step as? PollingStep, let main = done.mainAction?.model {
            step = try await manager.submitForm(main).step()
        }
        #expect(step is OAuthAuthorizationResponseStep, "\(step.rawJSONString)")
        await manager.close()
    }

    @Test("external browser: the URL signs in, the resume nonce continues the flow")
    func externalBrowser() async throws {
        let server = try await SdkTestServer.shared.get()
        let manager = try HaapiManager(haapiConfiguration: server.configuration())
        let launch = try #require(
            try await manager.startAuthenticator("browser") as? ExternalBrowserClientOperationStep)
        let url = try #require(launch.urlToLaunch(redirectTo: "app://haapi"))
        let page = try await SignInPage.load(url.absoluteString)
        let signIn = try await page.post(userName: "demouser", password: "Password1")
        #expect(signIn.status == 303)
        let location = try #require(signIn.header("Location").flatMap(URL.init(string:)))
        let parameters = try #require(launch.formattedParametersFromURL(location))
        let resume = try #require(launch.continueFormActionModel)
        let done = try await manager.submitForm(resume, parameters: parameters).step(
            OAuthAuthorizationResponseStep.self)
        #expect(done.oauthAuthorizationResponseProperties.code != nil)
        await manager.close()
    }

    @Test("a wrong password is a problem result, and the flow goes on")
    func wrongPassword() async throws {
        let server = try await SdkTestServer.shared.get()
        let manager = try HaapiManager(haapiConfiguration: server.configuration())
        let login = try await manager.startAuthenticator("password")
        let form = try #require((login.actions.first as? FormAction)?.model)
        guard
            case .problem(let problem) = await manager.submitForm(
                form, parameters: ["userName": "demouser", "password": "wrong"])
        else {
            Issue.record("a wrong password did not give a problem")
            return
        }
        #expect(problem.type == .incorrectCredentialsProblem)
        let done = await manager.submitForm(form, parameters: ["userName": "demouser", "password": "Password1"])
        _ = try done.step(OAuthAuthorizationResponseStep.self)
        await manager.close()
    }
}
