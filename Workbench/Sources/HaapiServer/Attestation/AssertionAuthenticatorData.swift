import Foundation

/// The authenticator data of an App Attest assertion: SHA-256 of the app id, a flags byte and a big-endian
/// counter, the first 37 bytes (the signature covers all of them, and whatever follows).
///
/// Not `Passkeys.AuthenticatorData`: devices set the attested-credential flag (0x40) in assertions without
/// the attested credential data that flag announces in WebAuthn, so the flags are not interpreted here.
struct AssertionAuthenticatorData: Equatable {
    /// SHA-256 of `<Team ID>.<Bundle ID>`.
    let rpIdHash: Data
    /// The flags byte, as sent.
    let flags: UInt8
    /// The key's counter.
    let signCount: UInt32

    /// `nil` when `bytes` is shorter than 37 bytes.
    init?(_ bytes: Data) {
        let raw = [UInt8](bytes)
        guard raw.count >= 37 else { return nil }
        rpIdHash = Data(raw[0..<32])
        flags = raw[32]
        signCount = raw[33..<37].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
    }
}
