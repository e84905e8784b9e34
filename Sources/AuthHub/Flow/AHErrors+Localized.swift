import Foundation
@_spi(Tooling) import HaapiModel

// `localizedDescription` for the Authentication Hub client's errors (see `ErrorSentence`).

extension AHServerError: SentenceError {
    public static var failureContext: String { "The Authentication Hub refused the request" }
}

extension AHFlowError: SentenceError {
    public static var failureContext: String { "The Authentication Hub sign-in failed" }
}

extension AHEncryptionError: SentenceError {
    public static var failureContext: String { "A field could not be encrypted for the Authentication Hub" }
}

extension AuthHubEndpoint.BuildError: SentenceError {
    public static var failureContext: String { "The Authentication Hub request could not be built" }
}
