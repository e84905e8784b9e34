import Foundation

#if canImport(CryptoKit) && !os(Linux)
import CryptoKit

/// A P-256 key generated in and held by the Secure Enclave (ES256). Its `dataRepresentation` is an
/// opaque handle that only this device's enclave can use, so it is safe to store.
public struct SecureEnclaveSigningKey: SigningKey {
    public static var isAvailable: Bool { SecureEnclave.isAvailable }

    /// Boxed: Xcode 16.0–16.2's CryptoKit does not declare its keys Sendable (`CryptoKeyBox`).
    private let box: CryptoKeyBox<SecureEnclave.P256.Signing.PrivateKey>
    private var key: SecureEnclave.P256.Signing.PrivateKey { box.value }
    public var algorithm: JWSAlgorithm { .es256 }
    public var publicJWK: JWK { JWK(p256PublicKey: key.publicKey) }
    public var dataRepresentation: Data { key.dataRepresentation }

    public init() throws {
        guard SecureEnclave.isAvailable else { throw JOSEError.unsupportedKeyType("no Secure Enclave on this device") }
        box = CryptoKeyBox(try SecureEnclave.P256.Signing.PrivateKey())
    }

    public init(dataRepresentation: Data) throws {
        box = CryptoKeyBox(try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: dataRepresentation))
    }

    public func signature(for signingInput: Data) throws -> Data {
        do {
            return try key.signature(for: signingInput).rawRepresentation
        } catch {
            throw JOSEError.signingFailed("\(error)")
        }
    }
}
#else
/// Where there is no Secure Enclave no value of this type can exist: both initializers throw, so
/// `CryptoKeyType.secureEnclave` ends in `HaapiError.dpopKeyCreationFailure`, never in a silent software key.
public struct SecureEnclaveSigningKey: SigningKey {
    /// Always `false` here.
    public static var isAvailable: Bool { false }
    private let impossible: Never

    public var algorithm: JWSAlgorithm { .es256 }
    public var publicJWK: JWK { switch impossible {} }
    /// Never reached: no value of this type exists here.
    public var dataRepresentation: Data { switch impossible {} }

    /// Always throws here.
    public init() throws { throw JOSEError.unsupportedKeyType("no Secure Enclave on this platform") }
    /// Always throws here.
    public init(dataRepresentation: Data) throws {
        throw JOSEError.unsupportedKeyType("no Secure Enclave on this platform")
    }
    public func signature(for signingInput: Data) throws -> Data { switch impossible {} }
}
#endif
