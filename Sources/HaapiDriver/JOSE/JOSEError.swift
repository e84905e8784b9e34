/// Why a JOSE operation failed. Each case names what was wrong so a log line is enough to diagnose it.
public enum JOSEError: Error, Sendable, Hashable, CustomStringConvertible {
    case malformedJWK(String)
    case unsupportedKeyType(String)
    case unsupportedCurve(String)
    /// The operation needs a private (or symmetric) key, and the JWK has only public members.
    case notAPrivateKey
    case keyDoesNotMatchAlgorithm(key: String, algorithm: JWSAlgorithm)
    case unsupportedAlgorithm(String)
    case algorithmNotAllowed(String)
    case malformedJWS(String)
    case unsupportedCriticalHeader([String])
    case invalidSignature
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
