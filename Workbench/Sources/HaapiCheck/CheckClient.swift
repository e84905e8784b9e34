import Foundation
@_spi(Tooling) import HaapiModel
@_spi(Tooling) import HaapiSdk

/// The client `haapi check` acts as in the groups that run the SDK (haapi, hygiene): its id, how it
/// authenticates (its credentials, or else the software attestation), its redirect URI and scopes, all
/// over the run's budgeted transport.
package struct CheckClient: Sendable {
    package init(
        server: URL, discovered: DiscoveredServer, clientID: String, method: any ClientAuthenticationMethod,
        secret: String?, redirectURI: String, scope: [String], http: CheckHTTP
    ) {
        self.server = server
        self.discovered = discovered
        self.clientID = clientID
        self.method = method
        self.secret = secret
        self.redirectURI = redirectURI
        self.scope = scope
        self.http = http
    }

    package let server: URL
    package let discovered: DiscoveredServer
    package let clientID: String
    package let method: any ClientAuthenticationMethod
    /// The client secret, when the client has one (the checks that talk OAuth without the SDK use Basic).
    package let secret: String?
    package let redirectURI: String
    package let scope: [String]
    package let http: CheckHTTP

    /// RFC 6749 §2.3.1's Basic header: the client id and secret form-encoded first.
    package static func basic(id: String, secret: String) -> (name: String, value: String) {
        func encoded(_ value: String) -> String { String(FormURLEncoding.encode([("", value)]).dropFirst()) }
        return ("Authorization", "Basic " + Data("\(encoded(id)):\(encoded(secret))".utf8).base64EncodedString())
    }

    /// A client without credentials proves itself with an attestation.
    package var attests: Bool { !method.hasCredentials }

    /// A configuration of its own name, so no run reuses another's keys or tokens; the DPoP key lives in
    /// memory only (a check writes nothing to the machine either).
    package func configuration(traffic: HaapiTraffic? = nil) -> HaapiConfiguration {
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
