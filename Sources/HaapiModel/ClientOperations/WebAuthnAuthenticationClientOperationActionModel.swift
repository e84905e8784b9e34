import Foundation

/// Get a WebAuthn assertion from an existing credential.
///
/// `credentialRequestOptions.publicKey` holds WebAuthn request options in JSON form. The optional
/// `platformCredentials` / `crossPlatformCredentials` lists narrow which credentials are accepted; they
/// have been described both beside `credentialRequestOptions` and inside `publicKey`, so both are read.
public struct WebAuthnAuthenticationClientOperationActionModel: CommonClientOperationActionModel {
    /// A credential that may answer the request.
    public struct AllowedCredential: Sendable, Hashable {
        /// The credential type, `public-key` for WebAuthn.
        public let type: String
        /// The credential's id, decoded from base64url.
        public let id: Data
        /// How the authenticator holding it can be reached, when the server knows.
        public let transports: [String]

        init(_ cursor: ObjectCursor) throws {
            guard let id = try cursor.base64URLData("id") else { throw cursor.missing("id") }
            self.id = Data(id)
            type = try cursor.optionalString("type") ?? "public-key"
            transports = try cursor.strings("transports")
        }
    }

    /// WebAuthn `PublicKeyCredentialRequestOptions`, with the base64url members decoded.
    public struct CredentialRequestOptions: RawJSONRepresentable, Hashable {
        /// The relying party's ID; the client's origin decides when absent.
        public let relyingPartyID: String?
        /// The server's challenge the assertion must sign, decoded from base64url.
        public let challenge: Data
        /// `required`, `preferred` or `discouraged`, as the relying party asks.
        public let userVerification: String?
        /// The credentials that may answer; empty lets the user pick a discoverable one.
        public let allowCredentials: [AllowedCredential]
        /// Milliseconds.
        public let timeout: Int?
        /// WebAuthn extensions as sent.
        public let extensions: JSONValue?
        public let rawJSON: JSONValue

        init(_ options: ObjectCursor) throws {
            relyingPartyID = try options.optionalString("rpId")
            guard let challenge = try options.base64URLData("challenge") else { throw options.missing("challenge") }
            self.challenge = Data(challenge)
            userVerification = try options.optionalString("userVerification")
            allowCredentials = try options.objects("allowCredentials").map(AllowedCredential.init)
            timeout = try options.optionalInt("timeout")
            extensions = options.value("extensions")
            rawJSON = options.raw
        }
    }

    public let common: ClientOperationCommon
    /// The request options for any authenticator.
    public let credentialRequestOptions: CredentialRequestOptions
    /// The credentials a platform authenticator (this device) may answer with, in the any-device shape.
    public let platformAllowCredentials: [AllowedCredential]?
    /// The credentials a roaming authenticator (a security key) may answer with, in the any-device shape.
    public let crossPlatformAllowCredentials: [AllowedCredential]?

    init(_ common: ClientOperationCommon, _ arguments: ObjectCursor) throws {
        self.common = common
        let wrapper = try arguments.object("credentialRequestOptions")
        let publicKey = try wrapper.optionalObject("publicKey") ?? wrapper
        credentialRequestOptions = try CredentialRequestOptions(publicKey)
        func list(_ key: String) throws -> [AllowedCredential]? {
            let cursor = arguments.value(key) != nil ? arguments : publicKey
            guard cursor.value(key) != nil else { return nil }
            return try cursor.objects(key).map(AllowedCredential.init)
        }
        platformAllowCredentials = try list("platformCredentials")
        crossPlatformAllowCredentials = try list("crossPlatformCredentials")
    }

    /// The relying party's ID of the request options.
    public var relyingPartyID: String? { credentialRequestOptions.relyingPartyID }
    /// The challenge the assertion must sign.
    public var challengeData: Data { credentialRequestOptions.challenge }
    /// The user-verification requirement of the request options (`required`, `preferred`, `discouraged`).
    public var userVerificationPreference: String? { credentialRequestOptions.userVerification }
}
