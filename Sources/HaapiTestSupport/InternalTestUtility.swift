import Foundation
@_spi(Tooling) import HaapiSdk

/// A `HaapiManager` and an `OAuthTokenManager` wired to a `ScriptedTransport`, for an app's unit tests: the
/// app's own flow handling runs against a list of representations, with no server. The managers are the real
/// ones (DPoP proofs, session headers, the token request for the code); only the answers are scripted.
public enum InternalTestUtility {
    /// The server the scripted managers believe they talk to.
    public static let serverURL = URL(string: "https://login.test.example") ?? URL(fileURLWithPath: "/")

    /// The configuration of a scripted flow: no attestation (the client secret `test-secret`), no stored key, and a fresh name each time (open
    /// token managers must have different names).
    public static func configuration(
        transport: any HTTPTransport, clientId: String = "test-client"
    )
        -> HaapiConfiguration
    {
        HaapiConfiguration(
            name: "test-\(UUID().uuidString)", clientId: clientId, baseURL: serverURL,
            tokenEndpointURL: serverURL.appendingPathComponent("oauth/token"),
            authorizationEndpointURL: serverURL.appendingPathComponent("oauth/authorize"), appRedirect: "app://test",
            transport: transport, attestationConfiguration: AttestationConfiguration(useAttestation: false),
            clientAuthenticationMethod: ClientAuthenticationMethodSecret("test-secret"), dpopKeyStorage: nil)
    }

    /// A manager whose requests get `steps` in order (JSON texts; a problem's `type` is a URI), and its
    /// transport, to see what was sent. Close the manager when done.
    public static func haapiManager(steps: [String]) async throws -> (HaapiManager, ScriptedTransport) {
        let (accessor, transport) = try await accessor(steps: steps)
        return (accessor.haapiManager, transport)
    }

    /// The accessor of a scripted flow: its `haapiManager` walks `steps`, its `oAuthTokenManager` redeems the
    /// code at the scripted token endpoint (tokens `test-access-token` / `test-refresh-token`).
    public static func accessor(steps: [String]) async throws -> (any HaapiAccessor, ScriptedTransport) {
        let transport = ScriptedTransport(
            responses: steps.map { IdsvrHaapiSdkTestUtils.response(json: $0) },
            tokenEndpoint: serverURL.appendingPathComponent("oauth/token"))
        let accessor = try await HaapiAccessorBuilder(haapiConfiguration: configuration(transport: transport)).build()
        return (accessor, transport)
    }
}
