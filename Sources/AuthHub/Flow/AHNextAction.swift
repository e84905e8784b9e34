/// The `nextaction` values an Authentication Hub flow answers with (../shared/research/authhub-hanko.md A.5).
/// Values this SDK does not know are kept as `.other`.
public enum AHNextAction: Sendable, Hashable, CustomStringConvertible {
    /// `PASSWORD_AUTH`: send the password.
    case passwordAuth
    /// `FACTOR_SELECTION`: choose a factor among `currentFactors`.
    case factorSelection
    /// `FIDO_AUTH_GENERATE_CHALLENGE`: ask for a passkey sign-in challenge.
    case fidoAuthGenerateChallenge
    /// `FIDO_AUTH_VERIFY_CHALLENGE`: send the passkey assertion.
    case fidoAuthVerifyChallenge
    /// `FIDO_REGISTER_GENERATE_CHALLENGE`: ask for a passkey registration challenge.
    case fidoRegisterGenerateChallenge
    /// `FIDO_REGISTER_VERIFY_CHALLENGE`: send the new passkey.
    case fidoRegisterVerifyChallenge
    /// `EMAIL_OTP_SELECTION`: choose the e-mail address to send a code to.
    case emailOTPSelection
    /// `EMAIL_OTP_AUTH`: send the code from the e-mail.
    case emailOTPAuth
    /// `SMS_OTP_SELECTION`: choose the phone to send a code to.
    case smsOTPSelection
    /// `SMS_OTP_AUTH`: send the code from the text message.
    case smsOTPAuth
    /// `OTP_SELECTION`: choose where to send a code.
    case otpSelection
    /// `AUTH_ALLOWED`: the flow succeeded; the answer carries the tokens.
    case authAllowed
    /// `AUTH_DENIED`: the flow failed for good.
    case authDenied
    /// A value this SDK does not know, as sent.
    case other(String)

    static let known: [String: AHNextAction] = [
        "PASSWORD_AUTH": .passwordAuth, "FACTOR_SELECTION": .factorSelection,
        "FIDO_AUTH_GENERATE_CHALLENGE": .fidoAuthGenerateChallenge,
        "FIDO_AUTH_VERIFY_CHALLENGE": .fidoAuthVerifyChallenge,
        "FIDO_REGISTER_GENERATE_CHALLENGE": .fidoRegisterGenerateChallenge,
        "FIDO_REGISTER_VERIFY_CHALLENGE": .fidoRegisterVerifyChallenge,
        "EMAIL_OTP_SELECTION": .emailOTPSelection, "EMAIL_OTP_AUTH": .emailOTPAuth,
        "SMS_OTP_SELECTION": .smsOTPSelection,
        "SMS_OTP_AUTH": .smsOTPAuth, "OTP_SELECTION": .otpSelection, "AUTH_ALLOWED": .authAllowed,
        "AUTH_DENIED": .authDenied,
    ]

    /// The action for a `nextaction` value; unknown values become `.other`.
    public init(rawValue: String) {
        self = Self.known[rawValue] ?? .other(rawValue)
    }

    /// The `nextaction` value as the hub spells it.
    public var rawValue: String {
        if case .other(let value) = self { return value }
        return Self.known.first { $0.value == self }?.key ?? ""
    }

    public var description: String { rawValue }

    /// The flow has ended, one way or the other.
    public var isFinal: Bool { self == .authAllowed || self == .authDenied }
}
