import Crypto

/// JWS `alg` values supported for signing and verification (RFC 7518 §3). `none` is deliberately absent.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable, Codable {
    /// HMAC with SHA-256.
    case hs256 = "HS256"
    /// HMAC with SHA-384.
    case hs384 = "HS384"
    /// HMAC with SHA-512.
    case hs512 = "HS512"
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    case rs384 = "RS384"
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    case rs512 = "RS512"
    /// RSASSA-PSS with SHA-256.
    case ps256 = "PS256"
    /// RSASSA-PSS with SHA-384.
    case ps384 = "PS384"
    /// RSASSA-PSS with SHA-512.
    case ps512 = "PS512"
    /// ECDSA with P-256 and SHA-256.
    case es256 = "ES256"
    /// ECDSA with P-384 and SHA-384.
    case es384 = "ES384"
    /// ECDSA with P-521 and SHA-512.
    case es512 = "ES512"

    /// The kind of key an algorithm needs.
    public enum Family: Sendable {
        /// A shared secret.
        case hmac
        /// An RSA key, PKCS#1 v1.5 signatures.
        case rsaPKCS1
        /// An RSA key, PSS signatures.
        case rsaPSS
        /// An elliptic-curve key.
        case ecdsa
    }

    /// The algorithm's family.
    public var family: Family {
        switch self {
        case .hs256, .hs384, .hs512: .hmac
        case .rs256, .rs384, .rs512: .rsaPKCS1
        case .ps256, .ps384, .ps512: .rsaPSS
        case .es256, .es384, .es512: .ecdsa
        }
    }

    /// Whether the algorithm uses a public/private key pair (the only kind DPoP allows).
    public var isAsymmetric: Bool { family != .hmac }

    /// Digest size in bits: 256, 384 or 512.
    public var hashBits: Int {
        switch self {
        case .hs256, .rs256, .ps256, .es256: 256
        case .hs384, .rs384, .ps384, .es384: 384
        case .hs512, .rs512, .ps512, .es512: 512
        }
    }

    /// The curve an ECDSA algorithm requires (RFC 7518 §3.4).
    public var curve: String? {
        switch self {
        case .es256: "P-256"
        case .es384: "P-384"
        case .es512: "P-521"
        default: nil
        }
    }

    /// The JWK `kty` this algorithm's keys have.
    public var keyType: String {
        switch family {
        case .hmac: "oct"
        case .rsaPKCS1, .rsaPSS: "RSA"
        case .ecdsa: "EC"
        }
    }
}
