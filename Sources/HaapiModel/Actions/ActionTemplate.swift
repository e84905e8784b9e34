/// How an action is presented: a form to submit, a choice between actions, or an operation the client runs.
public enum ActionTemplate: OpenEnum {
    case form
    case selector
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
