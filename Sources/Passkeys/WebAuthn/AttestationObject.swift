import Foundation
@_spi(Tooling) import HaapiDriver

/// `{"fmt", "attStmt", "authData"}` (WebAuthn §6.5), encoded canonically.
public struct AttestationObject: Sendable {
    /// The attestation statement format (`fmt`): `none`, `packed`, ….
    public let format: String
    /// The attestation statement (`attStmt`).
    public let statement: CBORValue
    /// The authenticator data, with the attested credential.
    public let authenticatorData: AuthenticatorData

    /// An attestation object from its parts.
    public init(format: String, statement: CBORValue, authenticatorData: AuthenticatorData) {
        self.format = format
        self.statement = statement
        self.authenticatorData = authenticatorData
    }

    /// The object as canonical CBOR.
    public var encoded: Data {
        CBOREncoder.encode(
            .map([
                CBORMapEntry("fmt", .text(format)), CBORMapEntry("attStmt", statement),
                CBORMapEntry("authData", .bytes(authenticatorData.raw)),
            ]))
    }

    /// Reads an attestation object; throws when the CBOR or the authenticator data is malformed.
    public init(parsing data: Data) throws(WebAuthnError) {
        let value: CBORValue
        do { value = try CBORDecoder().decode(data) } catch { throw .cbor(error) }
        guard let format = value["fmt"]?.textValue, let statement = value["attStmt"], statement.mapValue != nil,
            let authData = value["authData"]?.bytesValue
        else { throw .malformed("attestation object needs fmt, attStmt and authData") }
        self.format = format
        self.statement = statement
        authenticatorData = try AuthenticatorData(parsing: authData)
    }
}
