import HTTPTypes
@_spi(Tooling) import HaapiModel
import HaapiRules

extension Rule {
    /// The rule a HAAPI problem stands for when its sender names none: by the problem's type.
    init(problem: JSONValue, status: HTTPResponse.Status) {
        switch problem["type"]?.stringValue.map(ProblemType.init(rawValue:)) {
        case .invalidInputProblem?: self = .invalidInput
        case .incorrectCredentialsProblem?: self = .incorrectCredentials
        case .authenticationFailedProblem?, .tooManyAttemptsProblem?: self = .authenticationFailed
        case .sessionAndAccessTokenMismatchProblem?: self = .sessionMismatch
        default:
            if status == .notFound {
                self = .notFound
            } else {
                self = status.code >= 500 ? .serverError : .flowState
            }
        }
    }
}
