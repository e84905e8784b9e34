import Foundation

/// Configures and creates a `HaapiTokenManager`.
public struct HaapiTokenManagerBuilder: ValueBuilder {
    private let tokenEndpoint: URL
    private let clientId: String
    private var name = "haapi"
    private var transport: (any HTTPTransport)?
    private var minTokenTTL: TimeInterval = 10
    private var attester: (any Attester)? = defaultAttester()
    private var attestationMaxRetries = 3
    private var keyType: CryptoKeyType = .p256
    private var dpopKey: (any SigningKey)?
    private var clientAuthentication: any ClientAuthenticationMethod = ClientAuthenticationMethodNone()
    private var nonces = DPoPNonceStore()
    private var clock: @Sendable () -> Date = { Date() }

    /// A builder for `clientId` at `tokenEndpoint`, with attestation, a software P-256 key and a 10-second minimum
    /// token lifetime by default.
    public init(tokenEndpoint: URL, clientId: String) {
        self.tokenEndpoint = tokenEndpoint
        self.clientId = clientId
    }

    /// A copy with another name (`haapi` by default); the name keys the device identity.
    public func setName(_ name: String) -> Self {
        with { $0.name = name }
    }
    /// A copy that sends through `transport`.
    public func setTransport(_ transport: any HTTPTransport) -> Self {
        with { $0.transport = transport }
    }
    /// A copy that renews the token when fewer than `seconds` remain.
    public func setHaapiTokenMinTTL(_ seconds: TimeInterval) -> Self {
        with { $0.minTokenTTL = max(0, seconds) }
    }
    /// Uses the client's own credentials instead of attestation.
    public func disableDeviceCheckAttestation() -> Self {
        with { $0.attester = nil }
    }
    /// A copy that attests with `attester`.
    public func setAttester(_ attester: any Attester) -> Self {
        with { $0.attester = attester }
    }
    /// A copy that retries a failed attestation `count` times.
    public func setAttestationMaxRetryCount(_ count: Int) -> Self {
        with { $0.attestationMaxRetries = max(0, count) }
    }
    /// Where the DPoP key lives; a fresh key of this type is made for the manager.
    public func setKeyPairType(_ type: CryptoKeyType) -> Self {
        with { $0.keyType = type }
    }
    /// A specific DPoP key (one loaded from storage, so bound tokens survive a restart).
    public func setDPoPKey(_ key: any SigningKey) -> Self {
        with { $0.dpopKey = key }
    }
    /// A copy that authenticates the client with `method` when not attesting.
    public func setClientAuthenticationMethod(_ method: any ClientAuthenticationMethod) -> Self {
        with { $0.clientAuthentication = method }
    }
    /// Shares nonces with other components that talk to the same server.
    public func setNonceStore(_ store: DPoPNonceStore) -> Self {
        with { $0.nonces = store }
    }
    /// A copy with another notion of now (tests).
    public func setClock(_ clock: @escaping @Sendable () -> Date) -> Self {
        with { $0.clock = clock }
    }

    /// The token manager. Throws `.haapiTokenManagerAlreadyExists` when a manager with the same name is open, and
    /// `.invalidConfiguration` when the settings contradict each other.
    public func build() throws(HaapiError) -> HaapiTokenManager {
        if attester == nil, !clientAuthentication.hasCredentials {
            throw .invalidConfiguration(
                reason:
                    "without attestation the client needs credentials (a ClientAuthenticationMethod other than None)")
        }
        let key: any SigningKey
        if let dpopKey { key = dpopKey } else { key = try DeviceKeyStore.ephemeralKey(keyType) }
        guard HaapiTokenManagerRegistry.shared.claim(name) else { throw .haapiTokenManagerAlreadyExists(name: name) }
        let clock = self.clock
        let transport: any HTTPTransport
        if let chosen = self.transport {
            transport = chosen
        } else {
            transport = try Self.transport(for: clientAuthentication)
        }
        return HaapiTokenManager(
            name: name, tokenEndpoint: tokenEndpoint, clientId: clientId, dpop: Dpop(key: key, clock: clock),
            exchange: TokenEndpointExchange(transport: transport, nonces: nonces), attester: attester,
            attestationMaxRetries: attestationMaxRetries, clientAuthentication: clientAuthentication,
            minTokenTTL: minTokenTTL, clock: clock)
    }

    /// The default transport, or one that presents the client certificate when the method is mTLS.
    public static func transport(for method: any ClientAuthenticationMethod) throws(HaapiError) -> any HTTPTransport {
        guard let tls = method.tlsOptions else { return defaultHTTPTransport() }
        do { return try httpTransport(tls: tls) } catch {
            throw .invalidConfiguration(reason: "TLS settings rejected: \(error)")
        }
    }
}
