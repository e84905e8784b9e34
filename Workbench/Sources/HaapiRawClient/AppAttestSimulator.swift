import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys
import SwiftASN1
import X509

/// A stand-in for Apple's App Attest, for tests: a certificate authority in Apple's place (a root and an
/// intermediate) and device keys it certifies, producing attestation objects and assertions laid out as
/// Apple documents them ("Validating apps that connect to your server"). Point a server's
/// `appAttest.rootCertificate` at `rootPEM` and it verifies these as it would a device's.
///
/// The parameters after the first ones bend one rule at a time, for tests of the refusals.
public final class AppAttestSimulator: Sendable {
    /// The root certificate, PEM.
    public let rootPEM: String
    private let intermediate: Certificate
    /// Boxed: Xcode 16.0's CryptoKit keys are not `Sendable` (`CryptoKeyBox`).
    private let intermediateKeyBox: CryptoKeyBox<P256.Signing.PrivateKey>
    private var intermediateKey: P256.Signing.PrivateKey { intermediateKeyBox.value }
    /// The device keys by key id, with their assertion counters.
    private let keys = LockedValue<[String: (key: CryptoKeyBox<P256.Signing.PrivateKey>, counter: UInt32)]>([:])

    /// The `aaguid` of keys attested in the development environment.
    public static let developmentAAGUID = Data("appattestdevelop".utf8)
    /// The `aaguid` of keys attested in production.
    public static let productionAAGUID = Data("appattest".utf8) + Data(repeating: 0, count: 7)

    /// A new authority with its own root.
    public init() throws {
        let now = Date()
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CommonName("Test App Attestation Root CA")
            OrganizationName("swift-haapi tests")
        }
        let authority = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            Critical(KeyUsage(keyCertSign: true))
        }
        let root = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(rootKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400 * 30, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: authority, issuerPrivateKey: .init(rootKey))
        let intermediateKey = P256.Signing.PrivateKey()
        intermediateKeyBox = CryptoKeyBox(intermediateKey)
        intermediate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400 * 30, issuer: rootName,
            subject: try DistinguishedName { CommonName("Test App Attestation CA 1") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: authority, issuerPrivateKey: .init(rootKey))
        rootPEM = try root.serializeAsPEM().pemString
    }

    /// A new device key; returns its key id (standard base64 of SHA-256 of the public key, as DeviceCheck's).
    public func generateKey() -> String {
        let key = P256.Signing.PrivateKey()
        let keyID = Data(SHA256.hash(data: key.publicKey.x963Representation)).base64EncodedString()
        keys.withLock { $0[keyID] = (CryptoKeyBox(key), 0) }
        return keyID
    }

    /// The attestation object of `keyID` over `clientDataHash` for `appID`.
    /// - Parameters:
    ///   - aaguid: the environment's aaguid (development by default).
    ///   - certifiedNonce: the nonce the certificate carries, instead of SHA-256(authData ‖ clientDataHash).
    ///   - counter: the authenticator data's counter (0, as Apple's, by default).
    public func attestationObject(
        keyID: String, clientDataHash: Data, appID: String, aaguid: Data = developmentAAGUID,
        certifiedNonce: Data? = nil, counter: UInt32 = 0
    ) throws -> Data {
        guard let key = keys.withLock({ $0[keyID]?.key.value }), let keyIDBytes = Data(base64Encoded: keyID) else {
            throw SimulatorError("unknown key \(keyID)")
        }
        let authData = AuthenticatorData(
            rpId: appID, flags: [], signCount: counter,
            attestedCredential: .init(
                aaguid: aaguid, credentialID: keyIDBytes, publicKey: COSEKey(p256: key.publicKey)))
        let nonce = certifiedNonce ?? Data(SHA256.hash(data: authData.raw + clientDataHash))
        let now = Date()
        let credential = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400 * 3, issuer: intermediate.subject,
            subject: try DistinguishedName { CommonName(keyID) }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions([try Self.nonceExtension(nonce)]),
            issuerPrivateKey: .init(intermediateKey))
        var leafDER = DER.Serializer()
        try leafDER.serialize(credential)
        var intermediateDER = DER.Serializer()
        try intermediateDER.serialize(intermediate)
        let statement = CBORValue.map([
            CBORMapEntry(
                "x5c", .array([.bytes(Data(leafDER.serializedBytes)), .bytes(Data(intermediateDER.serializedBytes))])),
            CBORMapEntry("receipt", .bytes(Data("test receipt".utf8))),
        ])
        return AttestationObject(format: "apple-appattest", statement: statement, authenticatorData: authData).encoded
    }

    /// An assertion by `keyID` over `clientDataHash` for `appID`, with the key's next counter (or `counter`).
    public func assertion(keyID: String, clientDataHash: Data, appID: String, counter: UInt32? = nil) throws -> Data {
        let entry: (key: P256.Signing.PrivateKey, counter: UInt32)? = keys.withLock { keys in
            guard let current = keys[keyID] else { return nil }
            let next = counter ?? current.counter + 1
            keys[keyID] = (current.key, next)
            return (current.key.value, next)
        }
        guard let entry else { throw SimulatorError("unknown key \(keyID)") }
        // As a device makes it: the attested-credential flag (0x40) set, although no credential data follows.
        let authData = AuthenticatorData(rpId: appID, flags: .attestedCredentialData, signCount: entry.counter).raw
        let nonce = Data(SHA256.hash(data: authData + clientDataHash))
        // The Secure Enclave signs the nonce as an ES256 message: SHA-256 of the nonce is what is signed.
        let signature = try entry.key.signature(for: nonce).derRepresentation
        return CBOREncoder.encode(
            .map([
                CBORMapEntry("signature", .bytes(signature)), CBORMapEntry("authenticatorData", .bytes(authData)),
            ]))
    }

    /// `SEQUENCE { [1] EXPLICIT OCTET STRING nonce }` under OID 1.2.840.113635.100.8.2.
    static func nonceExtension(_ nonce: Data) throws -> Certificate.Extension {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(explicitlyTaggedWithTagNumber: 1, tagClass: .contextSpecific) { inner in
                try inner.serialize(ASN1OctetString(contentBytes: ArraySlice(nonce)))
            }
        }
        return Certificate.Extension(
            oid: [1, 2, 840, 113_635, 100, 8, 2], critical: false, value: ArraySlice(serializer.serializedBytes))
    }

    /// Why the simulator could not do what was asked.
    public struct SimulatorError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
