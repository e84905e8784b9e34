import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
import _CryptoExtras

/// A credential public key in COSE form (RFC 9053): EC2 P-256 (ES256) or RSA (RS256), the two kinds
/// every WebAuthn relying party must accept.
public enum COSEKey: Sendable, Equatable {
    /// A P-256 key (kty EC2, crv 1, alg ES256) by its coordinates.
    case ec2P256(x: Data, y: Data)
    /// An RSA key (kty RSA) by modulus and exponent, for RS256 or PS256.
    case rsa(n: Data, e: Data, algorithm: Int)

    /// COSE algorithm identifiers (IANA COSE Algorithms registry).
    public enum Algorithm {
        /// ECDSA with P-256 and SHA-256.
        public static let es256 = -7
        /// RSASSA-PKCS1-v1_5 with SHA-256.
        public static let rs256 = -257
        /// RSASSA-PSS with SHA-256.
        public static let ps256 = -37
    }

    /// The COSE form of a P-256 public key.
    public init(p256 key: P256.Signing.PublicKey) {
        let raw = key.rawRepresentation
        self = .ec2P256(x: raw.prefix(32), y: raw.suffix(32))
    }

    /// The key's COSE algorithm identifier.
    public var algorithm: Int {
        switch self {
        case .ec2P256: Algorithm.es256
        case .rsa(_, _, let algorithm): algorithm
        }
    }

    /// The CBOR map, in the canonical order the W3C vectors show: {1: kty, 3: alg, -1, -2, -3}.
    public var cbor: CBORValue {
        switch self {
        case .ec2P256(let x, let y):
            .map([
                CBORMapEntry(1, 2), CBORMapEntry(3, .int(Algorithm.es256)), CBORMapEntry(-1, 1),
                CBORMapEntry(-2, .bytes(x)), CBORMapEntry(-3, .bytes(y)),
            ])
        case .rsa(let n, let e, let algorithm):
            .map([
                CBORMapEntry(1, 3), CBORMapEntry(3, .int(algorithm)), CBORMapEntry(-1, .bytes(n)),
                CBORMapEntry(-2, .bytes(e)),
            ])
        }
    }

    /// The key as canonical CBOR, as it appears in attested credential data.
    public var encoded: Data { CBOREncoder.encode(cbor) }

    /// Reads a COSE key; throws `.unsupportedAlgorithm` for a key type or algorithm this module does not verify,
    /// `.malformed` for a broken one.
    public init(cbor: CBORValue) throws(WebAuthnError) {
        guard let kty = cbor[1]?.intValue, let alg = cbor[3]?.intValue else {
            throw .malformed("COSE key without kty or alg")
        }
        switch (kty, alg) {
        case (2, Algorithm.es256):
            guard cbor[-1]?.intValue == 1, let x = cbor[-2]?.bytesValue, let y = cbor[-3]?.bytesValue, x.count == 32,
                y.count == 32
            else {
                throw .malformed("EC2 key is not P-256 with 32-byte coordinates")
            }
            guard (try? P256.Signing.PublicKey(rawRepresentation: x + y)) != nil else {
                throw .malformed("EC2 point is not on P-256")
            }
            self = .ec2P256(x: x, y: y)
        case (3, Algorithm.rs256), (3, Algorithm.ps256):
            guard let n = cbor[-1]?.bytesValue, let e = cbor[-2]?.bytesValue, n.count >= 256 else {
                throw .malformed("RSA key shorter than 2048 bits")
            }
            self = .rsa(n: n, e: e, algorithm: alg)
        default:
            throw .unsupportedAlgorithm(alg)
        }
    }

    /// Checks a WebAuthn signature: DER ECDSA for ES256, PKCS#1 v1.5 or PSS for RSA, over SHA-256 of `data`.
    public func isValidSignature(_ signature: Data, for data: Data) -> Bool {
        switch self {
        case .ec2P256(let x, let y):
            guard let key = try? P256.Signing.PublicKey(rawRepresentation: x + y),
                let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature)
            else { return false }
            return key.isValidSignature(parsed, for: data)
        case .rsa(let n, let e, let algorithm):
            guard let key = try? _RSA.Signing.PublicKey(n: n, e: e) else { return false }
            let padding: _RSA.Signing.Padding = algorithm == Algorithm.ps256 ? .PSS : .insecurePKCS1v1_5
            return key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: data), padding: padding)
        }
    }
}

/// Why a WebAuthn operation or check failed.
public enum WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Input that is not what WebAuthn defines, and what was wrong with it.
    case malformed(String)
    /// A COSE algorithm this module does not support.
    case unsupportedAlgorithm(Int)
    /// CBOR that could not be decoded.
    case cbor(CBORDecodingError)
    /// The request cannot be served: wrong RP ID for the origin, no usable algorithm, an excluded credential, …
    case notAllowed(String)
    /// A check failed (challenge, origin, RP ID, flags, signature, counter), and which.
    case verificationFailed(String)
    /// The credential store could not be read or written.
    case storage(String)
    /// The relying party could not be reached (no connection, no answer in time).
    case unreachable(TransportError)

    public var description: String {
        switch self {
        case .malformed(let detail): "malformed WebAuthn data: \(detail)"
        case .unsupportedAlgorithm(let alg): "unsupported COSE algorithm \(alg)"
        case .cbor(let error): "\(error)"
        case .notAllowed(let detail): "not allowed: \(detail)"
        case .verificationFailed(let detail): "verification failed: \(detail)"
        case .storage(let detail): "credential store: \(detail)"
        case .unreachable(let error): "the RP cannot be reached: \(error)"
        }
    }
}
