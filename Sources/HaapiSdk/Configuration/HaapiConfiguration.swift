import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// What `HaapiManager` needs.
public protocol HaapiConfigurable: Sendable {
    /// Names the device identity (the DPoP key and the HAAPI token manager); unique among open managers.
    var name: String { get }
    /// The OAuth client the app is.
    var clientId: String { get }
    /// Resolves relative links in representations. Not the issuer.
    var baseURL: URL { get }
    /// The token endpoint: HAAPI tokens, codes, refreshes.
    var tokenEndpointURL: URL { get }
    /// Where the flow starts.
    var authorizationEndpointURL: URL { get }
    /// The redirect URI registered for the client.
    var appRedirect: String { get }
    /// Extra headers for every HAAPI request.
    var httpHeadersProvider: HttpHeadersProvider? { get }
    /// The scopes, ACR values and other parameters of each authorization request.
    var authorizationParametersProvider: OAuthAuthorizationParametersProvider? { get }
    /// Whether redirection steps are followed without being returned.
    var isAutoRedirect: Bool { get }
    /// How requests reach the server.
    var transport: any HTTPTransport { get }
    /// The HAAPI token is renewed when fewer seconds than this remain.
    var minTokenTTL: TimeInterval { get }
    /// Whether and how the client attests.
    var attestationConfiguration: AttestationConfiguration { get }
    /// The attester used when attestation is on.
    var attester: any Attester { get }
    /// Whether the tokens are bound to the DPoP key, and where the key lives.
    var tokenBoundConfiguration: any TokenBoundConfiguration { get }
    /// The client's own credentials, for a HAAPI token without attestation and for the DCR fallback.
    var clientAuthenticationMethod: any ClientAuthenticationMethod { get }
    /// Where the flow's token manager keeps the server's latest `DPoP-Nonce`; `nil` gives it a store of its own.
    var dpopNonceStore: DPoPNonceStore? { get }
}

extension HaapiConfigurable {
    public var dpopNonceStore: DPoPNonceStore? { nil }
}

/// What `OAuthTokenManager` needs.
public protocol OAuthTokenConfigurable: Sendable {
    /// The OAuth client the tokens are issued to.
    var clientId: String { get }
    /// The token endpoint: codes, refreshes.
    var tokenEndpointURL: URL { get }
    /// The revocation endpoint (RFC 7009), when the server has one.
    var revocationEndpointURL: URL? { get }
    /// The redirect URI the code was issued for.
    var appRedirect: String { get }
    /// How requests reach the server.
    var transport: any HTTPTransport { get }
    /// Whether the tokens are bound to the flow's DPoP key.
    var tokenBoundConfiguration: any TokenBoundConfiguration { get }
    /// Told about every token-endpoint response, with its headers.
    var tokenEndpointResponseListener: (any TokenEndpointResponseListener)? { get }
    /// The client's credentials at the token endpoint.
    var clientAuthenticationMethod: any ClientAuthenticationMethod { get }
    /// RFC 7662; `nil` when the server has none or the app does not introspect.
    var introspectionEndpointURL: URL? { get }
    /// Where the manager keeps the server's latest `DPoP-Nonce`; `nil` gives each manager a store of its own.
    var dpopNonceStore: DPoPNonceStore? { get }
}

extension OAuthTokenConfigurable {
    public var introspectionEndpointURL: URL? { nil }
    public var dpopNonceStore: DPoPNonceStore? { nil }
}

/// The configuration of one client against one server, for both managers.
public final class HaapiConfiguration: HaapiConfigurable, OAuthTokenConfigurable {
    public let name: String
    public let clientId: String
    /// Resolves relative links in representations. Not the issuer.
    public let baseURL: URL
    public let tokenEndpointURL: URL
    public let authorizationEndpointURL: URL
    public let revocationEndpointURL: URL?
    public let introspectionEndpointURL: URL?
    /// The `redirect_uri` registered for the client.
    public let appRedirect: String
    public let httpHeadersProvider: HttpHeadersProvider?
    public let authorizationParametersProvider: OAuthAuthorizationParametersProvider?
    /// The app's bundle, which the seed's SDK reads for BankID's risk assessment. This SDK collects no device
    /// data: the value is kept for source compatibility and for client-operation handlers that need the app's
    /// identity (its bundle identifier and URL schemes).
    public let applicationBundle: Bundle?
    /// Follow redirection steps without returning them.
    public let isAutoRedirect: Bool
    public let transport: any HTTPTransport
    /// The deadline of every request the SDK sends for this configuration, in seconds: a stalled server holds a
    /// login no longer than this per request. `nil` keeps the transport's own (30 s for the SDK's transports).
    public let requestTimeout: TimeInterval?
    /// The HAAPI access token is renewed when fewer seconds than this remain.
    public let minTokenTTL: TimeInterval
    public let attestationConfiguration: AttestationConfiguration
    /// Whether the HAAPI access token is obtained with client attestation (the seed's name for
    /// `attestationConfiguration.useAttestation`). When it is `false`, or with a DCR configuration, the
    /// client authentication method must not be `ClientAuthenticationMethodNone`.
    public var useAttestation: Bool { attestationConfiguration.useAttestation }
    public let attester: any Attester
    public let tokenBoundConfiguration: any TokenBoundConfiguration
    public let tokenEndpointResponseListener: (any TokenEndpointResponseListener)?
    public let clientAuthenticationMethod: any ClientAuthenticationMethod
    /// Where the DPoP key is kept so bound tokens survive a relaunch: by default the platform's storage
    /// (`PlatformStorage` for `dpop-keys`: the Keychain on Apple platforms, a sealed 0600 file in the user's
    /// application-support folder elsewhere), under a name made of `name` and `clientId`. `nil` keeps the key
    /// in memory only, so tokens bound to it die with the process: pass `nil` only when that is wanted.
    public let dpopKeyStorage: (any Storage)?
    /// A DPoP key the app already holds; it takes precedence over `dpopKeyStorage`.
    public let dpopKey: (any SigningKey)?
    /// The server's latest `DPoP-Nonce`, shared by the HAAPI flow's token manager and the `OAuthTokenManager`
    /// made from this configuration, so the code redemption uses what the flow learnt. Each configuration
    /// has its own unless one is passed in: nothing is shared across clients by default.
    public let dpopNonceStore: DPoPNonceStore?
    /// The PKCE verifiers of the codes this configuration's flows received, for the token request that redeems
    /// them: `HaapiManager` records, `OAuthTokenManager` takes, so the two managers built from one
    /// configuration (as the seed builds them) find each other's verifiers. The configurations the DCR fallback
    /// derives for a dynamic client share it too: the seed's `.oauth` accessor, built apart from the `.all` one
    /// that ran the flow, redeems its codes.
    @_spi(Tooling) public let codeVerifiers: CodeVerifierStore

    /// A configuration with the seed's parameters; everything after `appRedirect` has a default that suits a public
    /// client with attestation and DPoP-bound tokens.
    public init(
        name: String,
        clientId: String,
        baseURL: URL,
        tokenEndpointURL: URL,
        authorizationEndpointURL: URL,
        appRedirect: String,
        httpHeadersProvider: HttpHeadersProvider? = nil,
        authorizationParametersProvider: OAuthAuthorizationParametersProvider? = nil,
        applicationBundle: Bundle? = nil,
        isAutoRedirect: Bool = true,
        transport: (any HTTPTransport)? = nil,
        revocationEndpointURL: URL? = nil,
        introspectionEndpointURL: URL? = nil,
        minTokenTTL: TimeInterval = 10,
        attestationConfiguration: AttestationConfiguration = AttestationConfiguration(),
        attester: (any Attester)? = nil,
        tokenBoundConfiguration: any TokenBoundConfiguration = BoundedTokenConfiguration(),
        tokenEndpointResponseListener: (any TokenEndpointResponseListener)? = nil,
        clientAuthenticationMethod: any ClientAuthenticationMethod = ClientAuthenticationMethodNone(),
        dpopKeyStorage: (any Storage)? = HaapiConfiguration.defaultDPoPKeyStorage(),
        dpopKey: (any SigningKey)? = nil,
        dpopNonceStore: DPoPNonceStore = DPoPNonceStore(),
        requestTimeout: TimeInterval? = nil
    ) {
        self.name = name
        self.clientId = clientId
        self.baseURL = baseURL
        self.tokenEndpointURL = tokenEndpointURL
        self.authorizationEndpointURL = authorizationEndpointURL
        self.appRedirect = appRedirect
        self.httpHeadersProvider = httpHeadersProvider
        self.authorizationParametersProvider = authorizationParametersProvider
        self.applicationBundle = applicationBundle
        self.isAutoRedirect = isAutoRedirect
        let chosen: any HTTPTransport
        if let transport {
            chosen = transport
        } else {
            // mTLS needs a transport that presents the certificate. If its TLS settings are unusable, every
            // request fails with the reason: falling back to a plain transport would hide the mistake.
            do { chosen = try HaapiTokenManagerBuilder.transport(for: clientAuthenticationMethod) } catch {
                chosen = UnusableTransport(reason: error.errorDescription)
            }
        }
        self.transport = requestTimeout.map { DeadlineTransport(chosen, seconds: $0) } ?? chosen
        self.requestTimeout = requestTimeout
        self.revocationEndpointURL = revocationEndpointURL
        self.introspectionEndpointURL = introspectionEndpointURL
        self.minTokenTTL = minTokenTTL
        self.attestationConfiguration = attestationConfiguration
        self.attester = attester ?? defaultAttester()
        self.tokenBoundConfiguration = tokenBoundConfiguration
        self.tokenEndpointResponseListener = tokenEndpointResponseListener
        self.clientAuthenticationMethod = clientAuthenticationMethod
        self.dpopKeyStorage = dpopKeyStorage
        self.dpopKey = dpopKey
        self.dpopNonceStore = dpopNonceStore
        codeVerifiers = CodeVerifierStore()
    }

    /// The DPoP key storage a configuration gets unless it names one: the platform's, opened on first use.
    public static func defaultDPoPKeyStorage() -> any Storage {
        PlatformStorage(purpose: "dpop-keys")
    }

    /// The same configuration for another client (what the DCR fallback hands the managers), sharing this one's
    /// transport, nonce store and PKCE verifiers.
    func with(
        clientId: String, clientAuthenticationMethod: any ClientAuthenticationMethod, useAttestation: Bool
    ) -> HaapiConfiguration {
        HaapiConfiguration(
            copying: self, clientId: clientId, clientAuthenticationMethod: clientAuthenticationMethod,
            attestationConfiguration: AttestationConfiguration(
                useAttestation: useAttestation, attestationMaxRetries: attestationConfiguration.attestationMaxRetries))
    }

    private init(
        copying other: HaapiConfiguration, clientId: String, clientAuthenticationMethod: any ClientAuthenticationMethod,
        attestationConfiguration: AttestationConfiguration
    ) {
        name = other.name
        self.clientId = clientId
        baseURL = other.baseURL
        tokenEndpointURL = other.tokenEndpointURL
        authorizationEndpointURL = other.authorizationEndpointURL
        appRedirect = other.appRedirect
        httpHeadersProvider = other.httpHeadersProvider
        authorizationParametersProvider = other.authorizationParametersProvider
        applicationBundle = other.applicationBundle
        isAutoRedirect = other.isAutoRedirect
        transport = other.transport
        requestTimeout = other.requestTimeout
        revocationEndpointURL = other.revocationEndpointURL
        introspectionEndpointURL = other.introspectionEndpointURL
        minTokenTTL = other.minTokenTTL
        self.attestationConfiguration = attestationConfiguration
        attester = other.attester
        tokenBoundConfiguration = other.tokenBoundConfiguration
        tokenEndpointResponseListener = other.tokenEndpointResponseListener
        self.clientAuthenticationMethod = clientAuthenticationMethod
        dpopKeyStorage = other.dpopKeyStorage
        dpopKey = other.dpopKey
        dpopNonceStore = other.dpopNonceStore ?? DPoPNonceStore()
        codeVerifiers = other.codeVerifiers
    }
}

/// Stands in for a transport whose configuration was rejected; every request fails with the reason.
struct UnusableTransport: HTTPTransport {
    let reason: String

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        throw .couldNotConnect(reason)
    }
}
