/// Ways a UI flow ends that are not SDK errors.
public enum HaapiUIError: Error, Sendable, CustomStringConvertible {
    /// The user left the flow (back, close, Ctrl-C).
    case flowCancelled
    /// Automatic polling gave up after `pollingTimeout` seconds.
    case pollingTimedOut(after: Double)
    /// The server reported a problem that no screen can show (there is no step to attach it to).
    case problem(type: String, title: String?)
    /// The flow reached a step this kit cannot continue from.
    case unsupportedStep(String)

    public var description: String {
        switch self {
        case .flowCancelled: "the flow was cancelled"
        case .pollingTimedOut(let seconds): "no answer after \(Int(seconds)) s of polling"
        case .problem(let type, let title): "the server reported \(type)" + (title.map { ": \($0)" } ?? "")
        case .unsupportedStep(let type): "cannot continue from a \(type) step"
        }
    }
}
