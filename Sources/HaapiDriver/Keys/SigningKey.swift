import Crypto
import Foundation

/// A private key that signs and can show its public half as a JWK (DPoP and attestation keys).
///
/// Software keys implement it here; a Secure Enclave key implements the same protocol on Apple
/// platforms, so code that signs never knows where the key lives.
public protocol SigningKey: JWSSigner {
    /// The public key as a JWK, for the `jwk` header of proofs.
    var publicJWK: JWK { get }
}

extension SigningKey {
    /// The RFC 7638 thumbprint of the public key: what a server binds tokens to (`cnf.jkt`).
    public var thumbprint: String { publicJWK.thumbprint() }
}

/// A P-256 key held in memory (ES256).
public struct SoftwareP256SigningKey: SigningKey {
    /// Boxed: Xcode 16.0–16.2's CryptoKit does not declare its keys Sendable (`CryptoKeyBox`).
    private let box: CryptoKeyBox<P256.Signing.PrivateKey>
    /// The private key.
    public var privateKey: P256.Signing.PrivateKey { box.value }
    public var algorithm: JWSAlgorithm { .es256 }
    public var publicJWK: JWK { JWK(p256PublicKey: privateKey.publicKey) }

    /// A fresh random key.
    public init() {
        box = CryptoKeyBox(P256.Signing.PrivateKey())
    }

    /// A signing key for an existing private key.
    public init(privateKey: P256.Signing.PrivateKey) {
        box = CryptoKeyBox(privateKey)
    }

    /// Loads a key from a private EC P-256 JWK; the public members must match `d`.
    public init(jwk: JWK) throws {
        guard jwk.keyType == "EC", jwk.curve == "P-256" else {
            throw JOSEError.keyDoesNotMatchAlgorithm(
                key: [jwk.keyType, jwk.curve].compactMap { $0 }.joined(separator: " "), algorithm: .es256)
        }
        guard let scalar = jwk.bytes("d") else { throw JOSEError.notAPrivateKey }
        do {
            box = CryptoKeyBox(try P256.Signing.PrivateKey(rawRepresentation: scalar))
        } catch {
            throw JOSEError.malformedJWK("P-256 private key rejected: \(error)")
        }
        guard JWK(p256PublicKey: privateKey.publicKey).thumbprint() == jwk.thumbprint() else {
            throw JOSEError.malformedJWK("\"x\"/\"y\" do not belong to \"d\"")
        }
    }

    /// The private JWK (with `d`), for storage. Handle it as a secret.
    public var privateJWK: JWK { JWK(p256PrivateKey: privateKey) }

    public func signature(for signingInput: Data) throws -> Data {
        do {
            return try privateKey.signature(for: signingInput).rawRepresentation
        } catch {
            throw JOSEError.signingFailed("\(error)")
        }
    }
}
