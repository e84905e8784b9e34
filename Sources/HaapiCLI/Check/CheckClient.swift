import Foundation
import HaapiSdk

/// The client `haapi check` acts as in the groups that run the SDK (haapi, hygiene): its id, how it
/// authenticates (its credentials, or else the software attestation), its redirect URI and scopes, all
/// over the run's budgeted transport.
struct CheckClient: Sendable {
    let server: URL
    let discovered: DiscoveredServer
    let clientID: String
    let method: any ClientAuthenticationMethod
    let redirectURI: String
    let scope: [String]
    let http: CheckHTTP

    /// A client without credentials proves itself with an attestation.
    var attests: Bool { !method.hasCredentials }

    /// A configuration of its own name, so no run reuses another's keys or tokens; the DPoP key lives in
    /// memory only (a check writes nothing to the machine either).
    func configuration(traffic: HaapiTraffic? = nil) -> HaapiConfiguration {
        HaapiConfiguration(
            name: "haapi-check-" + SecureRandom.token(byteCount: 6), clientId: clientID, baseURL: server,
            tokenEndpointURL: discovered.tokenEndpoint, authorizationEndpointURL: discovered.authorizationEndpoint,
            appRedirect: redirectURI,
            authorizationParametersProvider: { [scope] in OAuthAuthorizationParameters(scopes: scope) },
            transport: BudgetedTransport(http: http, traffic: traffic),
            revocationEndpointURL: discovered.revocationEndpoint,
            introspectionEndpointURL: discovered.introspectionEndpoint, minTokenTTL: 5,
            attestationConfiguration: AttestationConfiguration(useAttestation: attests, attestationMaxRetries: 0),
            attester: SoftwareAttester(), tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256),
            clientAuthenticationMethod: method, dpopKeyStorage: nil)
    }
}
