import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver

/// Authenticator data (WebAuthn §6.1): rpIdHash ‖ flags ‖ signCount ‖ [attested credential data] ‖ [extensions].
public struct AuthenticatorData: Sendable, Equatable {
    /// The flags byte of the authenticator data.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// UP: the user was present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV: the user was verified (biometrics, PIN).
        public static let userVerified = Flags(rawValue: 0x04)
        /// BE: the credential may be backed up (synced).
        public static let backupEligible = Flags(rawValue: 0x08)
        /// BS: the credential is backed up.
        public static let backedUp = Flags(rawValue: 0x10)
        /// AT: attested credential data follows.
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED: extension data follows.
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// The credential a registration creates.
    public struct AttestedCredential: Sendable, Equatable {
        /// The authenticator model's id (16 bytes).
        public let aaguid: Data
        /// The new credential's id.
        public let credentialID: Data
        /// The new credential's public key.
        public let publicKey: COSEKey

        /// A credential from its parts, as an authenticator reports it.
        public init(aaguid: Data, credentialID: Data, publicKey: COSEKey) {
            self.aaguid = aaguid
            self.credentialID = credentialID
            self.publicKey = publicKey
        }
    }

    /// SHA-256 of the RP ID the authenticator acted for.
    public let rpIdHash: Data
    /// What the authenticator reports about the user and the credential.
    public let flags: Flags
    /// The signature counter.
    public let signCount: UInt32
    /// The new credential, in registrations.
    public let attestedCredential: AttestedCredential?
    /// The bytes as received (or encoded), which the signature covers.
    public let raw: Data

    /// Authenticator data for `rpId` (hashed here), as an authenticator makes it.
    public init(rpId: String, flags: Flags, signCount: UInt32, attestedCredential: AttestedCredential? = nil) {
        let rpIdHash = Data(SHA256.hash(data: Data(rpId.utf8)))
        var allFlags = flags
        if attestedCredential != nil { allFlags.insert(.attestedCredentialData) }
        var raw = rpIdHash
        raw.append(allFlags.rawValue)
        raw.append(contentsOf: withUnsafeBytes(of: signCount.bigEndian, Array.init))
        if let credential = attestedCredential {
            raw.append(credential.aaguid)
            raw.append(contentsOf: [
                UInt8(credential.credentialID.count >> 8), UInt8(credential.credentialID.count & 0xFF),
            ])
            raw.append(credential.credentialID)
            raw.append(credential.publicKey.encoded)
        }
        self.rpIdHash = rpIdHash
        self.flags = allFlags
        self.signCount = signCount
        self.attestedCredential = attestedCredential
        self.raw = raw
    }

    /// Parses authenticator data from another party.
    public init(parsing raw: Data) throws(WebAuthnError) {
        let bytes = [UInt8](raw)
        guard bytes.count >= 37 else { throw .malformed("authenticator data shorter than 37 bytes") }
        rpIdHash = Data(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var position = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count >= position + 18 else { throw .malformed("attested credential data is truncated") }
            let aaguid = Data(bytes[position..<position + 16])
            let length = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard length <= 1023, bytes.count >= position + length else {
                throw .malformed("credential id is truncated or longer than 1023 bytes")
            }
            let credentialID = Data(bytes[position..<position + length])
            position += length
            let decoded: (value: CBORValue, length: Int)
            do { decoded = try CBORDecoder(requireCanonical: false).decodePrefix(Data(bytes[position...])) } catch {
                throw .cbor(error)
            }
            position += decoded.length
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKey: try COSEKey(cbor: decoded.value))
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            do { position += try CBORDecoder().decodePrefix(Data(bytes[position...])).length } catch {
                throw .cbor(error)
            }
        }
        guard position == bytes.count else {
            throw .malformed("\(bytes.count - position) bytes after the authenticator data")
        }
        self.raw = raw
    }
}
