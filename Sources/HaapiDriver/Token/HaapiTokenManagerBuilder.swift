import Foundation

/// Configures and creates a `HaapiTokenManager`.
public final class HaapiTokenManagerBuilder: @unchecked Sendable {
    // Builders are used from one place at a time, as the seed's fluent style implies.
    private let tokenEndpoint: URL
    private let clientId: String
    private var name = "haapi"
    private var transport: (any HttpTransport)?
    private var minTokenTtl: TimeInterval = 10
    private var attester: (any Attester)? = defaultAttester()
    private var attestationMaxRetries = 3
    private var keyType: CryptoKeyType = .p256
    private var dpopKey: (any SigningKey)?
    private var clientAuthentication: any ClientAuthenticationMethod = ClientAuthenticationMethodNone()
    private var nonces = DpopNonceStore.shared
    private var clock: @Sendable () -> Date = { Date() }

    public init(tokenEndpoint: URL, clientId: String) {
        self.tokenEndpoint = tokenEndpoint
        self.clientId = clientId
    }

    @discardableResult public func setName(_ name: String) -> Self {
        self.name = name
        return self
    }
    @discardableResult public func setTransport(_ transport: any HttpTransport) -> Self {
        self.transport = transport
        return self
    }
    @discardableResult public func setHaapiTokenMinTtl(_ seconds: TimeInterval) -> Self {
        minTokenTtl = max(0, seconds)
        return self
    }
    /// Uses the client's own credentials instead of attestation.
    @discardableResult public func disableDeviceCheckAttestation() -> Self {
        attester = nil
        return self
    }
    @discardableResult public func setAttester(_ attester: any Attester) -> Self {
        self.attester = attester
        return self
    }
    @discardableResult public func setAttestationMaxRetryCount(_ count: Int) -> Self {
        attestationMaxRetries = max(0, count)
        return self
    }
    /// Where the DPoP key lives; a fresh key of this type is made for the manager.
    @discardableResult public func setKeyPairType(_ type: CryptoKeyType) -> Self {
        keyType = type
        return self
    }
    /// A specific DPoP key (one loaded from storage, so bound tokens survive a restart).
    @discardableResult public func setDpopKey(_ key: any SigningKey) -> Self {
        dpopKey = key
        return self
    }
    @discardableResult public func setClientAuthenticationMethod(_ method: any ClientAuthenticationMethod) -> Self {
        clientAuthentication = method
        return self
    }
    /// Shares nonces with other components that talk to the same server.
    @discardableResult public func setNonceStore(_ store: DpopNonceStore) -> Self {
        nonces = store
        return self
    }
    @discardableResult public func setClock(_ clock: @escaping @Sendable () -> Date) -> Self {
        self.clock = clock
        return self
    }

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
        let transport: any HttpTransport
        if let chosen = self.transport {
            transport = chosen
        } else {
            transport = try Self.transport(for: clientAuthentication)
        }
        return HaapiTokenManager(
            name: name, tokenEndpoint: tokenEndpoint, clientId: clientId, dpop: Dpop(key: key, clock: clock),
            exchange: TokenEndpointExchange(transport: transport, nonces: nonces), attester: attester,
            attestationMaxRetries: attestationMaxRetries, clientAuthentication: clientAuthentication,
            minTokenTtl: minTokenTtl, clock: clock)
    }

    /// The default transport, or one that presents the client certificate when the method is mTLS.
    public static func transport(for method: any ClientAuthenticationMethod) throws(HaapiError) -> any HttpTransport {
        guard let tls = method.tlsOptions else { return defaultHttpTransport() }
        do { return try httpTransport(tls: tls) } catch {
            throw .invalidConfiguration(reason: "TLS settings rejected: \(error)")
        }
    }
}
