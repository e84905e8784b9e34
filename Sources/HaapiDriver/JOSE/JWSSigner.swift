import Crypto
import Foundation
import _CryptoExtras

/// Produces JWS signatures: `signature(for:)` returns the bytes that go in the third segment
/// (R‖S for ECDSA, as RFC 7518 §3.4 requires, not DER).
public protocol JWSSigner: Sendable {
    /// The algorithm the signer signs with.
    var algorithm: JWSAlgorithm { get }
    /// The JWS signature of the signing input (`header.payload`), in JWS form (raw `r||s` for ECDSA).
    func signature(for signingInput: Data) throws -> Data
}

/// Checks JWS signatures for one algorithm.
public protocol JWSVerifier: Sendable {
    /// The algorithm the verifier checks.
    var algorithm: JWSAlgorithm { get }
    /// Whether `signature` is valid for the signing input.
    func isValidSignature(_ signature: Data, for signingInput: Data) -> Bool
}

extension JWK {
    /// A signer for this private (or symmetric) key. `algorithm` defaults to the JWK's `alg`, else to
    /// the natural one for the key (ES256/384/512 by curve, RS256, HS256).
    public func signer(algorithm: JWSAlgorithm? = nil) throws -> any JWSSigner {
        let algorithm = try resolvedAlgorithm(algorithm)
        switch algorithm.family {
        case .hmac:
            guard let secret = bytes("k") else { throw JOSEError.notAPrivateKey }
            return HMACSigner(algorithm: algorithm, key: SymmetricKey(data: secret))
        case .ecdsa:
            guard let scalar = bytes("d") else { throw JOSEError.notAPrivateKey }
            return try ECDSASigner(algorithm: algorithm, scalar: Data(scalar))
        case .rsaPKCS1, .rsaPSS:
            guard let n = bytes("n"), let e = bytes("e"), let d = bytes("d"), let p = bytes("p"), let q = bytes("q")
            else {
                throw JOSEError.notAPrivateKey
            }
            do {
                let key = try _RSA.Signing.PrivateKey(n: n, e: e, d: d, p: p, q: q)
                return RSASigner(algorithm: algorithm, key: key)
            } catch {
                throw JOSEError.malformedJWK("RSA private key rejected: \(error)")
            }
        }
    }

    /// A verifier for this key (its public half is enough).
    public func verifier(algorithm: JWSAlgorithm? = nil) throws -> any JWSVerifier {
        let algorithm = try resolvedAlgorithm(algorithm)
        switch algorithm.family {
        case .hmac:
            guard let secret = bytes("k") else { throw JOSEError.notAPrivateKey }
            return HMACSigner(algorithm: algorithm, key: SymmetricKey(data: secret))
        case .ecdsa:
            return try ECDSAVerifier(algorithm: algorithm, x963: try x963Representation())
        case .rsaPKCS1, .rsaPSS:
            guard let n = bytes("n"), let e = bytes("e") else { throw JOSEError.malformedJWK("missing n or e") }
            do {
                return RSAVerifier(algorithm: algorithm, key: try _RSA.Signing.PublicKey(n: n, e: e))
            } catch {
                throw JOSEError.malformedJWK("RSA public key rejected: \(error)")
            }
        }
    }

    private func resolvedAlgorithm(_ requested: JWSAlgorithm?) throws -> JWSAlgorithm {
        let algorithm: JWSAlgorithm
        if let requested {
            algorithm = requested
        } else if let declared = members["alg"]?.stringValue {
            guard let known = JWSAlgorithm(rawValue: declared) else { throw JOSEError.unsupportedAlgorithm(declared) }
            algorithm = known
        } else {
            switch (keyType, curve) {
            case ("EC", "P-384"?): algorithm = .es384
            case ("EC", "P-521"?): algorithm = .es512
            case ("EC", _): algorithm = .es256
            case ("RSA", _): algorithm = .rs256
            case ("oct", _): algorithm = .hs256
            default: throw JOSEError.unsupportedKeyType(keyType)
            }
        }
        guard algorithm.keyType == keyType, algorithm.curve == nil || algorithm.curve == curve else {
            throw JOSEError.keyDoesNotMatchAlgorithm(
                key: [keyType, curve].compactMap { $0 }.joined(separator: " "), algorithm: algorithm)
        }
        return algorithm
    }
}

struct HMACSigner: JWSSigner, JWSVerifier {
    let algorithm: JWSAlgorithm
    /// Boxed: Xcode 16.0–16.2's CryptoKit does not declare its keys Sendable (`CryptoKeyBox`).
    private let box: CryptoKeyBox<SymmetricKey>
    private var key: SymmetricKey { box.value }

    init(algorithm: JWSAlgorithm, key: SymmetricKey) {
        self.algorithm = algorithm
        box = CryptoKeyBox(key)
    }

    func signature(for signingInput: Data) throws -> Data {
        switch algorithm.hashBits {
        case 384: Data(HMAC<SHA384>.authenticationCode(for: signingInput, using: key))
        case 512: Data(HMAC<SHA512>.authenticationCode(for: signingInput, using: key))
        default: Data(HMAC<SHA256>.authenticationCode(for: signingInput, using: key))
        }
    }

    /// Constant time: CryptoKit's MAC comparison does not stop at the first differing byte.
    func isValidSignature(_ signature: Data, for signingInput: Data) -> Bool {
        switch algorithm.hashBits {
        case 384: HMAC<SHA384>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key)
        case 512: HMAC<SHA512>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key)
        default: HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signingInput, using: key)
        }
    }
}

struct ECDSASigner: JWSSigner {
    private enum Key {
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)
        case p521(P521.Signing.PrivateKey)
    }

    let algorithm: JWSAlgorithm
    /// Boxed: Xcode 16.0–16.2's CryptoKit does not declare its keys Sendable (`CryptoKeyBox`).
    private let box: CryptoKeyBox<Key>

    init(algorithm: JWSAlgorithm, scalar: Data) throws {
        self.algorithm = algorithm
        do {
            switch algorithm {
            case .es384: box = CryptoKeyBox(.p384(try P384.Signing.PrivateKey(rawRepresentation: scalar)))
            case .es512: box = CryptoKeyBox(.p521(try P521.Signing.PrivateKey(rawRepresentation: scalar)))
            default: box = CryptoKeyBox(.p256(try P256.Signing.PrivateKey(rawRepresentation: scalar)))
            }
        } catch {
            throw JOSEError.malformedJWK("EC private key rejected: \(error)")
        }
    }

    func signature(for signingInput: Data) throws -> Data {
        do {
            switch box.value {
            case .p256(let key): return try key.signature(for: signingInput).rawRepresentation
            case .p384(let key): return try key.signature(for: signingInput).rawRepresentation
            case .p521(let key): return try key.signature(for: signingInput).rawRepresentation
            }
        } catch {
            throw JOSEError.signingFailed("\(error)")
        }
    }
}

struct ECDSAVerifier: JWSVerifier {
    private enum Key {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)
    }

    let algorithm: JWSAlgorithm
    /// Boxed: Xcode 16.0–16.2's CryptoKit does not declare its keys Sendable (`CryptoKeyBox`).
    private let box: CryptoKeyBox<Key>

    init(algorithm: JWSAlgorithm, x963: Data) throws {
        self.algorithm = algorithm
        do {
            switch algorithm {
            case .es384: box = CryptoKeyBox(.p384(try P384.Signing.PublicKey(x963Representation: x963)))
            case .es512: box = CryptoKeyBox(.p521(try P521.Signing.PublicKey(x963Representation: x963)))
            default: box = CryptoKeyBox(.p256(try P256.Signing.PublicKey(x963Representation: x963)))
            }
        } catch {
            throw JOSEError.malformedJWK("EC public key rejected (not on the curve?): \(error)")
        }
    }

    /// The input is hashed here, from its bytes, with the hash the curve's algorithm names (RFC 7518 §3.4),
    /// and the digest verified: the keys' own `isValidSignature(_:for:)` over `Data` hashes through the
    /// generic `DataProtocol` path, which cost a third as much again as the hashing itself.
    func isValidSignature(_ signature: Data, for signingInput: Data) -> Bool {
        switch box.value {
        case .p256(let key):
            guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: Self.digest(SHA256.self, of: signingInput))
        case .p384(let key):
            guard let parsed = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: Self.digest(SHA384.self, of: signingInput))
        case .p521(let key):
            guard let parsed = try? P521.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(parsed, for: Self.digest(SHA512.self, of: signingInput))
        }
    }

    private static func digest<Hash: HashFunction>(_: Hash.Type, of input: Data) -> Hash.Digest {
        var hash = Hash()
        input.withUnsafeBytes { hash.update(bufferPointer: $0) }
        return hash.finalize()
    }
}

/// RSASSA-PKCS1-v1_5 (RS*) and RSASSA-PSS with MGF1 and a salt as long as the hash (PS*), per RFC 7518.
struct RSASigner: JWSSigner {
    let algorithm: JWSAlgorithm
    let key: _RSA.Signing.PrivateKey

    func signature(for signingInput: Data) throws -> Data {
        let padding: _RSA.Signing.Padding = algorithm.family == .rsaPSS ? .PSS : .insecurePKCS1v1_5
        do {
            switch algorithm.hashBits {
            case 384: return try key.signature(for: SHA384.hash(data: signingInput), padding: padding).rawRepresentation
            case 512: return try key.signature(for: SHA512.hash(data: signingInput), padding: padding).rawRepresentation
            default: return try key.signature(for: SHA256.hash(data: signingInput), padding: padding).rawRepresentation
            }
        } catch {
            throw JOSEError.signingFailed("\(error)")
        }
    }
}

struct RSAVerifier: JWSVerifier {
    let algorithm: JWSAlgorithm
    let key: _RSA.Signing.PublicKey

    func isValidSignature(_ signature: Data, for signingInput: Data) -> Bool {
        let padding: _RSA.Signing.Padding = algorithm.family == .rsaPSS ? .PSS : .insecurePKCS1v1_5
        let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
        switch algorithm.hashBits {
        case 384: return key.isValidSignature(parsed, for: SHA384.hash(data: signingInput), padding: padding)
        case 512: return key.isValidSignature(parsed, for: SHA512.hash(data: signingInput), padding: padding)
        default: return key.isValidSignature(parsed, for: SHA256.hash(data: signingInput), padding: padding)
        }
    }
}
