/// The operation a `client-operation` action asks the client to run.
public enum ClientOperationName: OpenEnum {
    case externalBrowserFlow
    case bankID
    case encapAutoActivation
    case webauthnRegistration
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
