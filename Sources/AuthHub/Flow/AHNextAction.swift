/// The `nextaction` values an Authentication Hub flow answers with (../shared/research/authhub-hanko.md A.5).
/// Values this SDK does not know are kept as `.other`.
public enum AHNextAction: Sendable, Hashable, CustomStringConvertible {
    case passwordAuth
    case factorSelection
    case fidoAuthGenerateChallenge
    case fidoAuthVerifyChallenge
    case fidoRegisterGenerateChallenge
    case fidoRegisterVerifyChallenge
    case emailOTPSelection
    case emailOTPAuth
    case smsOTPSelection
    case smsOTPAuth
    case otpSelection
    case authAllowed
    case authDenied
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

    public init(rawValue: String) {
        self = Self.known[rawValue] ?? .other(rawValue)
    }

    public var rawValue: String {
        if case .other(let value) = self { return value }
        return Self.known.first { $0.value == self }?.key ?? ""
    }

    public var description: String { rawValue }

    /// The flow has ended, one way or the other.
    public var isFinal: Bool { self == .authAllowed || self == .authDenied }
}
