/// What an action means (login, cancel, poll, …). Open-ended: servers add kinds over time.
public enum ActionKind: OpenEnum {
    case cancel
    case deviceOption
    case login
    case `continue`
    case continueAutoLogin
    case deviceSelector
    case redirect
    case authenticatorSelector
    case selectAuthenticator
    case poll
    case form
    case bankIDSameDevice
    case bankIDOtherDevice
    case passwordReset
    /// The wire string was never observed; `account-id-recovery` follows the other kinds' pattern.
    case accountIDRecovery
    case userRegister
    case userConsent
    case deviceRegister
    case deviceAuthn
    case other(value: String)

    public static let knownCases: [ActionKind] = [
        .cancel, .deviceOption, .login, .continue, .continueAutoLogin, .deviceSelector, .redirect,
        .authenticatorSelector, .selectAuthenticator, .poll, .form, .bankIDSameDevice, .bankIDOtherDevice,
        .passwordReset, .accountIDRecovery, .userRegister, .userConsent, .deviceRegister, .deviceAuthn,
    ]

    public var rawValue: String {
        switch self {
        case .cancel: "cancel"
        case .deviceOption: "device-option"
        case .login: "login"
        case .continue: "continue"
        case .continueAutoLogin: "continue-auto-login"
        case .deviceSelector: "device-selector"
        case .redirect: "redirect"
        case .authenticatorSelector: "authenticator-selector"
        case .selectAuthenticator: "select-authenticator"
        case .poll: "poll"
        case .form: "form"
        case .bankIDSameDevice: "bankid-same-device"
        case .bankIDOtherDevice: "bankid-other-device"
        case .passwordReset: "password-reset"
        case .accountIDRecovery: "account-id-recovery"
        case .userRegister: "user-register"
        case .userConsent: "user-consent"
        case .deviceRegister: "device-register"
        case .deviceAuthn: "device-authn"
        case .other(let value): value
        }
    }
}
