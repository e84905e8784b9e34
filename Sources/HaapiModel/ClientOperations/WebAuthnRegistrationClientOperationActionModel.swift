import Foundation

/// Create a WebAuthn credential (a passkey, or a platform / cross-platform authenticator).
///
/// Servers send one of two argument shapes: `credentialCreationOptions` (passkeys), or
/// `platformCredentialCreationOptions` and/or `crossPlatformCredentialCreationOptions` (any device).
/// Each holds WebAuthn creation options in JSON form, usually wrapped in `publicKey`.
public struct WebAuthnRegistrationClientOperationActionModel: CommonClientOperationActionModel {
    /// A key type and algorithm the relying party accepts.
    public struct CredentialParams: Sendable, Hashable {
        /// The credential type, `public-key` for WebAuthn.
        public let type: String
        /// A COSE algorithm identifier (-7 is ES256, -257 is RS256).
        public let alg: Int
    }

    /// A credential the user already has.
    public struct ExcludedCredential: Sendable, Hashable {
        /// The credential type, `public-key` for WebAuthn.
        public let type: String
        /// The id of a credential the user already has, which the authenticator must not register again.
        public let id: Data
        /// How the authenticator holding it can be reached, when the server knows.
        public let transports: [String]
    }

    /// WebAuthn `PublicKeyCredentialCreationOptions`, with the base64url members decoded.
    public struct CredentialRequestOptions: RawJSONRepresentable, Hashable {
        /// The relying party's ID; the client's origin decides when absent.
        public let relyingPartyID: String?
        /// The relying party's name, for the authenticator's UI.
        public let relyingPartyName: String?
        /// The user handle the new credential is registered under, decoded from base64url.
        public let userID: Data
        /// The account name the authenticator shows next to the passkey.
        public let userName: String
        /// The name shown for the user.
        public let userDisplayName: String?
        /// The server's challenge the attestation must sign, decoded from base64url.
        public let challenge: Data
        /// The key types and algorithms the relying party accepts, in its order of preference.
        public let credentialParams: [CredentialParams]
        /// Credentials the authenticator must not register again.
        public let excludeCredentials: [ExcludedCredential]
        /// Milliseconds.
        public let timeout: Int?
        /// `platform` or `cross-platform`, when the relying party asks for one.
        public let authenticatorAttachment: String?
        /// `required`, `preferred` or `discouraged`: whether the credential must be discoverable.
        public let residentKey: String?
        /// The older form of `residentKey: required`.
        public let requireResidentKey: Bool?
        /// `required`, `preferred` or `discouraged`, as the relying party asks.
        public let userVerification: String?
        /// The attestation conveyance the relying party asks for (`none`, `indirect`, `direct`).
        public let attestation: String?
        /// WebAuthn hints (`security-key`, `client-device`, `hybrid`) in the server's order of preference.
        public let hints: [String]
        /// WebAuthn extensions as sent.
        public let extensions: JSONValue?
        /// The `publicKey` object as sent, ready for a platform API that takes WebAuthn JSON.
        public let rawJSON: JSONValue

        init(wrapper: ObjectCursor) throws {
            let options = try wrapper.optionalObject("publicKey") ?? wrapper
            let rp = try options.object("rp")
            relyingPartyID = try rp.optionalString("id")
            relyingPartyName = try rp.optionalString("name")
            let user = try options.object("user")
            guard let userID = try user.base64URLData("id") else { throw user.missing("id") }
            self.userID = Data(userID)
            userName = try user.string("name")
            userDisplayName = try user.optionalString("displayName")
            guard let challenge = try options.base64URLData("challenge") else { throw options.missing("challenge") }
            self.challenge = Data(challenge)
            credentialParams = try options.objects("pubKeyCredParams").map { params in
                guard let alg = try params.optionalInt("alg") else { throw params.missing("alg") }
                return CredentialParams(type: try params.optionalString("type") ?? "public-key", alg: alg)
            }
            excludeCredentials = try options.objects("excludeCredentials").map { descriptor in
                guard let id = try descriptor.base64URLData("id") else { throw descriptor.missing("id") }
                return ExcludedCredential(
                    type: try descriptor.optionalString("type") ?? "public-key",
                    id: Data(id),
                    transports: try descriptor.strings("transports"))
            }
            timeout = try options.optionalInt("timeout")
            let selection = try options.optionalObject("authenticatorSelection")
            authenticatorAttachment = try selection?.optionalString("authenticatorAttachment")
            residentKey = try selection?.optionalString("residentKey")
            requireResidentKey = try selection?.optionalBool("requireResidentKey")
            userVerification = try selection?.optionalString("userVerification")
            attestation = try options.optionalString("attestation")
            hints = try options.strings("hints")
            extensions = options.value("extensions")
            rawJSON = options.raw
        }
    }

    /// The options for a platform authenticator, in the any-device shape.
    public typealias PlatformCredentialRequestOptions = CredentialRequestOptions
    /// The options for a roaming authenticator, in the any-device shape.
    public typealias CrossPlatformCredentialRequestOptions = CredentialRequestOptions

    public let common: ClientOperationCommon
    /// Passkeys shape (`credentialCreationOptions`); the credential goes back in the `credential` field.
    public let credentialRequestOptions: CredentialRequestOptions?
    /// Any-device shape; the credential goes back in `platformCredential`.
    public let platformCredentialRequestOptions: PlatformCredentialRequestOptions?
    /// Any-device shape; the credential goes back in `crossPlatformCredential`.
    public let crossPlatformCredentialRequestOptions: CrossPlatformCredentialRequestOptions?

    init(_ common: ClientOperationCommon, _ arguments: ObjectCursor) throws {
        self.common = common
        credentialRequestOptions = try arguments.optionalObject("credentialCreationOptions").map(
            CredentialRequestOptions.init(wrapper:))
        platformCredentialRequestOptions = try arguments.optionalObject("platformCredentialCreationOptions")
            .map(CredentialRequestOptions.init(wrapper:))
        crossPlatformCredentialRequestOptions = try arguments.optionalObject("crossPlatformCredentialCreationOptions")
            .map(CredentialRequestOptions.init(wrapper:))
        guard
            credentialRequestOptions != nil || platformCredentialRequestOptions != nil
                || crossPlatformCredentialRequestOptions != nil
        else {
            throw HaapiDecodingError(
                path: arguments.path,
                reason: .invalidValue(
                    "needs credentialCreationOptions, platformCredentialCreationOptions or crossPlatformCredentialCreationOptions"
                ))
        }
    }

    /// The continue-form field that carries a credential made from `options`.
    public func credentialFieldName(for options: CredentialRequestOptions) -> String {
        if let platform = platformCredentialRequestOptions, platform == options, credentialRequestOptions != options {
            return "platformCredential"
        }
        if let crossPlatform = crossPlatformCredentialRequestOptions, crossPlatform == options,
            credentialRequestOptions != options
        {
            return "crossPlatformCredential"
        }
        return "credential"
    }
}
