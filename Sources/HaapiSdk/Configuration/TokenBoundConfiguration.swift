/// Whether the tokens from the authorization code are bound to the flow's DPoP key.
public protocol TokenBoundConfiguration: Sendable {
    /// Where the DPoP key lives.
    var keyPairType: CryptoKeyType { get }
}

/// Tokens are DPoP-bound: the code is redeemed with a proof from `HaapiManager.dpop`, and so is every
/// refresh. The default.
public struct BoundedTokenConfiguration: TokenBoundConfiguration, Equatable {
    public let keyPairType: CryptoKeyType

    /// The Secure Enclave where there is one, otherwise a software P-256 key.
    public init(keyPairType: CryptoKeyType = CryptoKeyType.secureEnclave.isAvailable ? .secureEnclave : .p256) {
        self.keyPairType = keyPairType
    }
}

/// Tokens are bearer tokens: the code is redeemed without a proof. Passing a DPoP to
/// `OAuthTokenManager.fetchAccessToken` with this configuration is `HaapiError.invalidConfiguration`.
/// The HAAPI calls themselves are still DPoP-bound, with an in-memory P-256 key.
public struct UnboundedTokenConfiguration: TokenBoundConfiguration, Equatable {
    public var keyPairType: CryptoKeyType { .p256 }
    /// Bearer tokens from the code; HAAPI calls stay DPoP-bound.
    public init() {}
}
