import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

/// The code of the DocC article "Logging in with the SDK" (Sources/HaapiSdk/HaapiSdk.docc/LoggingIn.md),
/// step for step, so the article cannot drift from the API.
@Suite("The LoggingIn article's code", .timeLimit(.minutes(2)))
struct LoggingInArticleTests {
    @Test("discover, build the accessor, select the password authenticator, log in, redeem the code, close")
    func article() async throws {
        let server = try await SdkTestServer.shared.get()
        // The article leaves `name` to its default (the client id); tests running in parallel need their own.
        let configuration = try await HaapiConfiguration.discover(
            issuer: server.base,
            clientId: "haapi-demo",
            appRedirect: "app://haapi",
            name: "article-" + UUID().uuidString,
            attester: SoftwareAttester())

        let accessor = try await HaapiAccessorBuilder(haapiConfiguration: configuration).build()
        let manager = accessor.haapiManager

        guard case .representation(let selector as AuthenticatorSelectorStep) = await manager.start(),
            let password = selector.authenticators.first(where: { $0.action.model.href.hasSuffix("/password") })
        else { throw TestFailure("no password authenticator") }

        guard case .representation(let form as InteractiveFormStep) = await manager.submitForm(password.action.model),
            let login = (form.actions.first as? FormAction)?.model
        else { throw TestFailure("no login form") }

        let result = await manager.submitForm(login, parameters: ["userName": "demouser", "password": "Password1"])

        guard case .representation(let done as OAuthAuthorizationResponseStep) = result,
            let code = done.oauthAuthorizationResponseProperties.code
        else { throw TestFailure("no code") }

        switch await accessor.oAuthTokenManager.fetchAccessToken(with: code, dpop: manager.dpop) {
        case .successfulToken(let tokens):
            #expect(tokens.tokenType == "DPoP" && (tokens.expiresIn ?? 0) > 0)
            let refreshed = await accessor.oAuthTokenManager.refreshAccessToken(
                with: try #require(tokens.refreshToken), dpop: manager.dpop)
            guard case .successfulToken = refreshed else { throw TestFailure("refresh: \(refreshed)") }
        case .errorToken(let error):
            throw TestFailure("the server refused the code: \(error.error)")
        case .error(let error):
            throw TestFailure("no answer: \(error)")
        }

        await manager.close()
    }
}
