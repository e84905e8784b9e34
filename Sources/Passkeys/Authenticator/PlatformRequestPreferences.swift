/// What an RP's options ask of the system authenticator, as ASAuthorization takes it: the attestation
/// conveyance and the user-verification preference. WebAuthn (§5.4.6, §5.8.6) says a value the client does not
/// know is ignored, not refused; so is it here (`nil`: the platform's default).
public struct PlatformRequestPreferences: Sendable, Equatable {
    /// `none`, `indirect`, `direct` or `enterprise`; for registrations.
    public let attestation: String?
    /// `required`, `preferred` or `discouraged`.
    public let userVerification: String?

    static let attestationValues: Set<String> = ["none", "indirect", "direct", "enterprise"]
    static let userVerificationValues: Set<String> = ["required", "preferred", "discouraged"]

    /// The preferences of a registration.
    public init(_ options: PublicKeyCredentialCreationOptions) {
        attestation = options.attestation.flatMap { Self.attestationValues.contains($0) ? $0 : nil }
        userVerification = options.userVerification.flatMap { Self.userVerificationValues.contains($0) ? $0 : nil }
    }

    /// The preferences of a sign-in (no attestation).
    public init(_ options: PublicKeyCredentialRequestOptions) {
        attestation = nil
        userVerification = options.userVerification.flatMap { Self.userVerificationValues.contains($0) ? $0 : nil }
    }
}
