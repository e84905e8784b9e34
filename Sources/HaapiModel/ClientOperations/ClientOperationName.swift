/// The operation a `client-operation` action asks the client to run.
public enum ClientOperationName: OpenEnum {
    /// `external-browser-flow`: open an address in a browser and resume with the URL it returns to.
    case externalBrowserFlow
    /// `bankid`: start the BankID app.
    case bankID
    /// `encap-auto-activation`: activate Encap on this device.
    case encapAutoActivation
    /// `webauthn-registration`: create a passkey.
    case webauthnRegistration
    /// `webauthn-authentication`: sign in with a passkey.
    case webauthnAuthentication
    case other(value: String)

    public static let knownCases: [ClientOperationName] = [
        .externalBrowserFlow, .bankID, .encapAutoActivation, .webauthnRegistration, .webauthnAuthentication,
    ]

    public var rawValue: String {
        switch self {
        case .externalBrowserFlow: "external-browser-flow"
        case .bankID: "bankid"
        case .encapAutoActivation: "encap-auto-activation"
        case .webauthnRegistration: "webauthn-registration"
        case .webauthnAuthentication: "webauthn-authentication"
        case .other(let value): value
        }
    }
}
