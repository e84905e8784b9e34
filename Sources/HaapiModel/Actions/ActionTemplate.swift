/// How an action is presented: a form to submit, a choice between actions, or an operation the client runs.
public enum ActionTemplate: OpenEnum {
    /// A form to submit.
    case form
    /// A choice between nested actions.
    case selector
    /// An operation the client performs (a browser, BankID, a passkey).
    case clientOperation
    case other(value: String)

    public static let knownCases: [ActionTemplate] = [.form, .selector, .clientOperation]

    public var rawValue: String {
        switch self {
        case .form: "form"
        case .selector: "selector"
        case .clientOperation: "client-operation"
        case .other(let value): value
        }
    }
}
