/// Why a JOSE operation failed. Each case names what was wrong so a log line is enough to diagnose it.
public enum JOSEError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A JWK that is not a well-formed key, and why.
    case malformedJWK(String)
    /// A key type (`kty`) this SDK does not handle.
    case unsupportedKeyType(String)
    /// An elliptic curve this SDK does not handle.
    case unsupportedCurve(String)
    /// The operation needs a private (or symmetric) key, and the JWK has only public members.
    case notAPrivateKey
    /// A key that cannot be used with the algorithm.
    case keyDoesNotMatchAlgorithm(key: String, algorithm: JWSAlgorithm)
    /// An `alg` this SDK does not handle.
    case unsupportedAlgorithm(String)
    /// An `alg` the caller does not allow here (`none`, or a symmetric one for a proof).
    case algorithmNotAllowed(String)
    /// A JWS that is not three base64url parts of a JSON header and payload.
    case malformedJWS(String)
    /// A `crit` header names extensions this SDK does not understand.
    case unsupportedCriticalHeader([String])
    /// The signature does not verify.
    case invalidSignature
    /// The key could not sign.
    case signingFailed(String)

    public var description: String {
        switch self {
        case .malformedJWK(let detail): "malformed JWK: \(detail)"
        case .unsupportedKeyType(let kty): "unsupported key type \"\(kty)\""
        case .unsupportedCurve(let crv): "unsupported curve \"\(crv)\""
        case .notAPrivateKey: "the JWK holds no private key"
        case .keyDoesNotMatchAlgorithm(let key, let algorithm): "a \(key) key cannot be used with \(algorithm.rawValue)"
        case .unsupportedAlgorithm(let alg): "unsupported JWS algorithm \"\(alg)\""
        case .algorithmNotAllowed(let alg): "JWS algorithm \"\(alg)\" is not allowed here"
        case .malformedJWS(let detail): "malformed JWS: \(detail)"
        case .unsupportedCriticalHeader(let names): "unsupported critical header(s): \(names.joined(separator: ", "))"
        case .invalidSignature: "the signature does not verify"
        case .signingFailed(let detail): "signing failed: \(detail)"
        }
    }
}
