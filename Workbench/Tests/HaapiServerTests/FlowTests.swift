import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRawClient
import Testing

@testable import HaapiServer

@Suite("HAAPI flow (item 6)")
struct FlowTests {
    /// Every representation the server sends must decode with HaapiModel.
    static func decode(_ response: RawResponse, sourceLocation: SourceLocation = #_sourceLocation) -> HaapiResponse? {
        do {
            return try HaapiDecoder().decode(response.body, contentType: response.header("Content-Type"))
        } catch {
            Issue.record("HaapiModel could not decode \(response.text): \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test("password login end to end: redirection, selector, login form, code with state and iss, DPoP-bound tokens")
    func passwordLogin() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        let tokenResponse = try await device.obtainHaapiToken()
        #expect(tokenResponse.status == 200)
        #expect(tokenResponse.json["token_type"] == "DPoP")

        let redirect = try await device.authorize()
        #expect(redirect.status == 200)
        #expect(redirect.contentType == "application/vnd.auth+json")
        #expect(redirect.header("Set-Session-Id") != nil)
        #expect(
            Self.decode(redirect).flatMap {
                if case .representation(let step) = $0 { step as? RedirectionStep } else { nil }
            } != nil)

        let selector = try await device.submit(redirect.json["actions"]?[0])
        guard case .representation(let selectorStep)? = Self.decode(selector) else {
            throw UnexpectedResponse("no selector")
        }
        let authenticators = try #require(selectorStep as? AuthenticatorSelectorStep)
        #expect(
            authenticators.authenticators.compactMap(\.type) == [
                "username-password", "email-otp", "approve-on-another-device", "external-browser", "passkeys",
                "html-form", "bankid", "username-password",
            ])

        let login = try await device.submit(selector.json["actions"]?[0]?["model"]?["options"]?[0])
        guard case .representation(let loginStep)? = Self.decode(login) else {
            throw UnexpectedResponse("no login step")
        }
        let form = try #require((loginStep as? InteractiveFormStep)?.formActions.first)
        #expect(form.model.fields.map(\.name) == ["userName", "password"])
        #expect(loginStep.links.map(\.rel) == ["forgot-password", "register-create"])

        let afterLogin = try await device.submit(
            login.json["actions"]?[0], [("userName", "demouser"), ("password", "Password1")])
        guard case .representation(let resumeStep)? = Self.decode(afterLogin) else {
            throw UnexpectedResponse("no redirect after login")
        }
        #expect(resumeStep is RedirectionStep)

        let final = try await device.submit(afterLogin.json["actions"]?[0])
        guard case .representation(let finalStep)? = Self.decode(final) else {
            throw UnexpectedResponse("no final step")
        }
        let response = try #require(finalStep as? OAuthAuthorizationResponseStep)
        #expect(response.oauthAuthorizationResponseProperties.state == "st-1")
        #expect(response.oauthAuthorizationResponseProperties.iss == server.base)
        let code = try #require(response.oauthAuthorizationResponseProperties.code)
        #expect(response.links.first?.href.hasPrefix("app://haapi?code=") == true)

        let tokens = try await device.redeem(code: code)
        #expect(tokens.status == 200, "\(tokens.text)")
        #expect(tokens.json["token_type"] == "DPoP")
        #expect(tokens.json["refresh_token"]?.stringValue != nil)
        let idToken = try CompactJWS(parsing: try #require(tokens.json["id_token"]?.stringValue))
        let jwks = try await RawHTTP.send("GET", server.base + "/oauth/jwks").json
        try idToken.verify(with: JWK(json: try #require(jwks["keys"]?[0])), allowedAlgorithms: [.es256])
        let claims = try idToken.payloadObject()
        #expect(claims["sub"] == "demouser" && claims["aud"] == "haapi-demo" && claims["name"] == "Demo User")

        let refreshed = try await device.refresh(try #require(tokens.json["refresh_token"]?.stringValue))
        #expect(refreshed.status == 200, "\(refreshed.text)")
        #expect(refreshed.json["refresh_token"] != tokens.json["refresh_token"])
    }
}
