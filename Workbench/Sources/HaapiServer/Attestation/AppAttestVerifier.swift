import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys
import SwiftASN1
import X509

/// An App Attest key the server has verified an attestation of: what later assertions are checked against.
struct AppAttestKey: Sendable, Equatable {
    /// The key identifier: SHA-256 of the public key, as the device names it (standard base64).
    let keyID: String
    /// The public key (P-256, X9.63 uncompressed).
    let publicKey: Data
    /// The app the key belongs to: `<Team ID>.<Bundle ID>`.
    let appID: String
    /// The last counter the server accepted.
    let signCount: UInt32
    /// The environment the key was attested in; nil for keys stored before it was recorded.
    var environment: AppAttestSettings.Environment?
}

/// Apple App Attest, verified as Apple documents it ("Validating apps that connect to your server"). Pure
/// functions of their inputs: the caller supplies the trusted root, the app ids and the stored key, and
/// keeps the counter.
enum AppAttestVerifier {
    /// The credential certificate's extension that carries the nonce.
    static var nonceExtension: ASN1ObjectIdentifier { [1, 2, 840, 113_635, 100, 8, 2] }

    /// What an attestation is checked against.
    struct Trust: Sendable {
        let root: Certificate
        let appIDs: [String]
        let environment: AppAttestSettings.Environment
    }

    /// The `aaguid` an attested key carries in each environment.
    static func aaguid(_ environment: AppAttestSettings.Environment) -> Data {
        switch environment {
        case .development: Data("appattestdevelop".utf8)
        case .production: Data("appattest".utf8) + Data(repeating: 0, count: 7)
        }
    }

    /// Verifies an attestation object for `keyID` over `clientDataHash`: the certificate chain to the root,
    /// the nonce extension, the key id (SHA-256 of the certificate's key, and the credential id), the RP ID
    /// hash of a configured app id, a zero counter and the environment's aaguid. The certificates' validity is
    /// checked against the wall clock (swift-certificates' RFC 5280 policy), not the server's test clock.
    static func verifyAttestation(
        _ object: Data, keyID: String, clientDataHash: Data, trust: Trust
    ) async -> Result<AppAttestKey, AppAttestFailure> {
        guard let keyIDBytes = Data(base64Encoded: keyID), keyIDBytes.count == 32 else {
            return .failure(.malformed("keyId is not the base64 of 32 bytes"))
        }
        let leaf: Certificate
        let intermediates: [Certificate]
        let authDataBytes: Data
        switch parseAttestationObject(object) {
        case .failure(let failure): return .failure(failure)
        case .success(let parsed): (leaf, intermediates, authDataBytes) = parsed
        }
        var verifier = Verifier(rootCertificates: CertificateStore([trust.root])) {
            RFC5280Policy()
        }
        guard
            case .validCertificate = await verifier.validate(leaf: leaf, intermediates: CertificateStore(intermediates))
        else { return .failure(.untrusted("the certificate chain does not lead to the trusted App Attest root")) }

        let nonce = Data(SHA256.hash(data: authDataBytes + clientDataHash))
        guard let certified = certifiedNonce(leaf), certified == nonce else {
            return .failure(.mismatch("the certificate's nonce is not SHA-256(authData ‖ clientDataHash)"))
        }
        guard let certificateKey = P256.Signing.PublicKey(leaf.publicKey) else {
            return .failure(.malformed("the credential certificate's key is not P-256"))
        }
        let publicKey = certificateKey.x963Representation
        guard Data(SHA256.hash(data: publicKey)) == keyIDBytes else {
            return .failure(.mismatch("keyId is not SHA-256 of the certified public key"))
        }
        let authData: AuthenticatorData
        do { authData = try AuthenticatorData(parsing: authDataBytes) } catch {
            return .failure(.malformed("authData: \(error)"))
        }
        guard let appID = trust.appIDs.first(where: { Data(SHA256.hash(data: Data($0.utf8))) == authData.rpIdHash })
        else { return .failure(.mismatch("the RP ID hash names none of the configured app ids")) }
        guard authData.signCount == 0 else { return .failure(.mismatch("a new key's counter must be 0")) }
        guard let credential = authData.attestedCredential else {
            return .failure(.malformed("authData carries no attested credential"))
        }
        guard credential.aaguid == aaguid(trust.environment) else {
            return .failure(
                .mismatch("the aaguid is not App Attest's for the \(trust.environment.rawValue) environment"))
        }
        guard credential.credentialID == keyIDBytes else {
            return .failure(.mismatch("the credential id is not the key id"))
        }
        return .success(
            AppAttestKey(
                keyID: keyIDBytes.base64EncodedString(), publicKey: publicKey, appID: appID, signCount: 0,
                environment: trust.environment))
    }

    /// Verifies an assertion by `key` over `clientDataHash`: the signature over
    /// SHA-256(authenticatorData ‖ clientDataHash) (signed as an ES256 message, so hashed once more), the
    /// key's app id, and a counter above the stored one. Returns the new counter.
    ///
    /// The authenticator data is read as Apple lays it out for assertions (RP ID hash, flags, counter), not as
    /// WebAuthn's: a device sets the attested-credential flag there without the credential data (seen in a
    /// real iOS 14.4 assertion), which a WebAuthn parser refuses as truncated.
    static func verifyAssertion(
        _ assertion: Data, clientDataHash: Data, key: AppAttestKey
    ) -> Result<UInt32, AppAttestFailure> {
        let decoded: CBORValue
        do { decoded = try CBORDecoder(limits: cborLimits).decode(assertion) } catch {
            return .failure(.malformed("the assertion is not CBOR: \(error)"))
        }
        guard let signatureDER = decoded["signature"]?.bytesValue,
            let authDataBytes = decoded["authenticatorData"]?.bytesValue
        else { return .failure(.malformed("the assertion needs signature and authenticatorData")) }
        guard let authData = AssertionAuthenticatorData(authDataBytes) else {
            return .failure(.malformed("authenticatorData is shorter than the RP ID hash, flags and counter"))
        }
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: key.publicKey),
            let signature = try? P256.Signing.ECDSASignature(derRepresentation: signatureDER)
        else { return .failure(.malformed("the signature is not a DER ECDSA signature")) }
        let nonce = Data(SHA256.hash(data: authDataBytes + clientDataHash))
        guard publicKey.isValidSignature(signature, for: nonce) else {
            return .failure(.untrusted("the assertion's signature does not verify with the attested key"))
        }
        guard authData.rpIdHash == Data(SHA256.hash(data: Data(key.appID.utf8))) else {
            return .failure(.mismatch("the RP ID hash is not the key's app id"))
        }
        guard authData.signCount > key.signCount else {
            return .failure(.replayed("the counter did not increase (\(authData.signCount) after \(key.signCount))"))
        }
        return .success(authData.signCount)
    }

    /// The credential certificate, the intermediates and the authenticator data of an attestation object
    /// (`{"fmt": "apple-appattest", "attStmt": {"x5c": [...], "receipt"}, "authData"}`), unverified.
    static func parseAttestationObject(
        _ object: Data
    ) -> Result<(leaf: Certificate, intermediates: [Certificate], authData: Data), AppAttestFailure> {
        let decoded: CBORValue
        do { decoded = try CBORDecoder(limits: cborLimits).decode(object) } catch {
            return .failure(.malformed("the attestation object is not CBOR: \(error)"))
        }
        guard decoded["fmt"]?.textValue == "apple-appattest" else {
            return .failure(.malformed("fmt must be apple-appattest"))
        }
        guard case .array(let x5c)? = decoded["attStmt"]?["x5c"], let leafDER = x5c.first?.bytesValue,
            x5c.count <= 4, let authData = decoded["authData"]?.bytesValue
        else {
            return .failure(.malformed("the attestation object needs attStmt.x5c (1 to 4 certificates) and authData"))
        }
        do {
            let leaf = try Certificate(derEncoded: Array(leafDER))
            var intermediates: [Certificate] = []
            for item in x5c.dropFirst() {
                guard let der = item.bytesValue else { return .failure(.malformed("x5c holds a non-byte item")) }
                intermediates.append(try Certificate(derEncoded: Array(der)))
            }
            return .success((leaf, intermediates, authData))
        } catch {
            return .failure(.malformed("x5c holds a certificate that does not parse: \(error)"))
        }
    }

    /// The octet string in the nonce extension: `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    static func certifiedNonce(_ certificate: Certificate) -> Data? {
        guard let value = certificate.extensions[oid: nonceExtension]?.value else { return nil }
        return try? DER.sequence(try DER.parse(value), identifier: .sequence) { nodes in
            try DER.explicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { node in
                Data(try ASN1OctetString(derEncoded: node).bytes)
            }
        }
    }

    /// An attestation object is a few kilobytes (two certificates and a receipt).
    static var cborLimits: CBORDecoder.Limits {
        var limits = CBORDecoder.Limits()
        limits.maxBytes = 64 * 1024
        limits.maxDepth = 8
        limits.maxItems = 256
        return limits
    }
}

/// Why an App Attest attestation or assertion was refused.
enum AppAttestFailure: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case untrusted(String)
    case mismatch(String)
    case replayed(String)

    var description: String {
        switch self {
        case .malformed(let reason), .untrusted(let reason), .mismatch(let reason), .replayed(let reason): reason
        }
    }
}
