/// What an action means (login, cancel, poll, …). Open-ended: servers add kinds over time.
public enum ActionKind: OpenEnum {
    /// `cancel`: abandon the step or the flow.
    case cancel
    /// `device-option`: one device among several.
    case deviceOption
    /// `login`: submit credentials.
    case login
    /// `continue`: go on to the next step.
    case `continue`
    /// `continue-auto-login`: continue with an automatic login after registration.
    case continueAutoLogin
    /// `device-selector`: a choice of devices.
    case deviceSelector
    /// `redirect`: follow a redirection.
    case redirect
    /// `authenticator-selector`: a choice of authenticators.
    case authenticatorSelector
    /// `select-authenticator`: choose this authenticator.
    case selectAuthenticator
    /// `poll`: ask whether a pending operation has finished.
    case poll
    /// `form`: a generic form.
    case form
    /// `bankid-same-device`: run BankID on this device.
    case bankIDSameDevice
    /// `bankid-other-device`: run BankID on another device.
    case bankIDOtherDevice
    /// `password-reset`: reset a forgotten password.
    case passwordReset
    /// The wire string was never observed; `account-id-recovery` follows the other kinds' pattern.
    case accountIDRecovery
    /// `user-register`: create an account.
    case userRegister
    /// `user-consent`: answer a consent request.
    case userConsent
    /// `device-register`: register a device.
    case deviceRegister
    /// `device-authn`: authenticate with a registered device.
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
