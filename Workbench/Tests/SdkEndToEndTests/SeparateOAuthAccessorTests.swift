import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

/// The seed builds two accessors from one configuration: `.all` runs the flow, a separate `.oauth` one redeems the
/// code. With the DCR fallback each build derives its own configuration for the dynamic client; the PKCE verifier
/// the flow recorded must still reach the token request (issue 50 item 6). The app passes no verifier.
@Suite("The seed's separate .oauth accessor redeems the code of a .all accessor's flow", .timeLimit(.minutes(3)))
struct SeparateOAuthAccessorTests {
    static func builder(
        _ server: SdkTestServer, _ configuration: HaapiConfiguration, storage: any Storage
    ) -> HaapiAccessorBuilder {
        HaapiAccessorBuilder(haapiConfiguration: configuration)
            .setDCRConfiguration(
                configuration: DCRConfiguration(
                    templateClientId: "haapi-dcr-template",
                    clientRegistrationEndpointUrl: server.base.appendingPathComponent("oauth/register"),
                    storage: storage))
    }

    static func dcrConfiguration(_ server: SdkTestServer) -> HaapiConfiguration {
        server.configuration(
            clientId: "haapi-dcr-main",
            clientAuthentication: ClientAuthenticationMethodSecret("dcr-main-secret-change-me"))
    }

    @Test(
        "with the DCR fallback, registering during the .all build or with a client stored before: tokens, no verifier passed",
        arguments: [false, true])
    func dcr(storedBefore: Bool) async throws {
        let server = try await SdkTestServer.shared.get()
        let storage = InMemoryStorage()
        let configuration = Self.dcrConfiguration(server)
        if storedBefore {
            // An earlier run registered the device's dynamic client.
            _ = try await Self.builder(server, configuration, storage: storage).setHaapiAccessorOption(option: .oauth)
                .buildOAuthAccessor()
        }
        let flow = try await Self.builder(server, configuration, storage: storage).build()
        #expect(flow.haapiManager.configuration.clientId.hasPrefix("dyn-"))
        let code = try await flow.haapiManager.passwordLogin()
        let oauth = try await Self.builder(server, configuration, storage: storage).setHaapiAccessorOption(
            option: .oauth
        )
        .buildOAuthAccessor()
        #expect(oauth.oAuthTokenManager.configuration.clientId == flow.haapiManager.configuration.clientId)
        let tokens = try await oauth.oAuthTokenManager.fetchAccessToken(with: code, dpop: flow.haapiManager.dpop)
            .success()
        #expect(tokens.tokenType == "DPoP")
        await flow.haapiManager.close()
    }

    @Test("without DCR (attestation): the same two accessors")
    func attestation() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = server.configuration()
        let flow = try await HaapiAccessorBuilder(haapiConfiguration: configuration).build()
        let code = try await flow.haapiManager.passwordLogin()
        let oauth = try await HaapiAccessorBuilder(haapiConfiguration: configuration).setHaapiAccessorOption(
            option: .oauth
        ).buildOAuthAccessor()
        let tokens = try await oauth.oAuthTokenManager.fetchAccessToken(with: code, dpop: flow.haapiManager.dpop)
            .success()
        #expect(tokens.tokenType == "DPoP")
        await flow.haapiManager.close()
    }

    /// The seed's `viewDidLoad` shape: outside an async context only the synchronous `build()` is in reach.
    static func synchronousBuild(_ builder: HaapiAccessorBuilder) -> any HaapiAccessor {
        builder.build()
    }

    @Test("after the seed's synchronous build(), HaapiManager.codeVerifier(for:) answers, once")
    func synchronousBuildVerifier() async throws {
        let server = try await SdkTestServer.shared.get()
        let configuration = Self.dcrConfiguration(server)
        let accessor = Self.synchronousBuild(Self.builder(server, configuration, storage: InMemoryStorage()))
        let code = try await accessor.haapiManager.passwordLogin()
        let verifier = try #require(accessor.haapiManager.codeVerifier(for: code))
        #expect(accessor.haapiManager.codeVerifier(for: code) == nil)
        let tokens = try await accessor.oAuthTokenManager.fetchAccessToken(
            with: code, dpop: accessor.haapiManager.dpop, codeVerifier: verifier
        ).success()
        #expect(tokens.tokenType == "DPoP")
        await accessor.haapiManager.close()
    }
}
