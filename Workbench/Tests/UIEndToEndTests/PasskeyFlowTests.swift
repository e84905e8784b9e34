import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiUI
import Testing

/// Passkeys inside HAAPI flows: the dev server's passkeys authenticator and the view model's WebAuthn steps.
@Suite("Passkeys in HAAPI flows", .timeLimit(.minutes(3)))
@MainActor
struct PasskeyFlowTests {
    @Test("create a passkey after proving the password, then sign in with it alone in a new flow")
    func registerThenSignIn() async throws {
        let server = try await UITestServer.shared.get()
        let authenticator = SoftwareAuthenticator(storage: InMemoryStorage())
        let application = try server.application(passkeys: authenticator)

        let first = HaapiFlowViewModel(haapiUIKitApplication: application)
        await first.start()
        try await first.selectAuthenticator("passkeys")
        let create = try #require(first.forms.first { !$0.visibleFields.isEmpty })
        await first.submit(create, values: ["userName": "approver", "password": "Password1"])
        guard case .clientOperation(let registration)? = first.uiModel?.content else {
            Issue.record("no registration step")
            return
        }
        #expect(registration.name == "webauthn-registration")
        #expect(await first.performPasskeyOperation())
        #expect(first.oAuthModel is OAuthTokenModel, "\(String(describing: first.error))")
        await first.close()
        #expect(try await authenticator.credentials().count == 1)

        let second = HaapiFlowViewModel(haapiUIKitApplication: application)
        await second.start()
        try await second.selectAuthenticator("passkeys")
        let use = try #require(second.forms.first { $0.visibleFields.isEmpty })
        await second.submit(use)
        guard case .clientOperation(let assertion)? = second.uiModel?.content else {
            Issue.record("no authentication step")
            return
        }
        #expect(assertion.name == "webauthn-authentication")
        #expect(await second.performPasskeyOperation())
        let tokens = try #require(second.oAuthModel as? OAuthTokenModel, "\(String(describing: second.error))")
        #expect(tokens.idTokenClaims?["sub"]?.stringValue == "approver")
        #expect(try await authenticator.credentials().first?.signCount == 1)
        await second.close()
    }

    @Test("without a passkey authenticator the step's fallback action is taken (back to choosing)")
    func fallback() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application())
        await viewModel.start()
        try await viewModel.selectAuthenticator("passkeys")
        await viewModel.submit(try #require(viewModel.forms.first { $0.visibleFields.isEmpty }))
        #expect(!(await viewModel.performPasskeyOperation()))
        guard case .selector? = viewModel.uiModel?.content else {
            Issue.record("not back at the selector: \(String(describing: viewModel.uiModel?.step.type))")
            return
        }
        await viewModel.close()
    }

    @Test("an authenticator with no passkey for this RP gets the fallback; a wrong password gets a problem")
    func noCredential() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(
            haapiUIKitApplication: try server.application(passkeys: SoftwareAuthenticator(storage: InMemoryStorage())))
        await viewModel.start()
        try await viewModel.selectAuthenticator("passkeys")
        let create = try #require(viewModel.forms.first { !$0.visibleFields.isEmpty })
        await viewModel.submit(create, values: ["userName": "demouser", "password": "wrong"])
        #expect(viewModel.uiModel?.problemMessages.isEmpty == false)
        await viewModel.submit(try #require(viewModel.forms.first { $0.visibleFields.isEmpty }))
        #expect(!(await viewModel.performPasskeyOperation()))
        guard case .selector? = viewModel.uiModel?.content else {
            Issue.record("no fallback")
            return
        }
        await viewModel.close()
    }
}
