import Foundation
import HaapiModel

// `localizedDescription` for the Authentication Hub client's errors (see `ErrorSentence`).

extension AHServerError: CustomNSError {
    public static var errorDomain: String { "AuthHub.AHServerError" }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make("The Authentication Hub refused the request", description)]
    }
}

extension AHFlowError: CustomNSError {
    public static var errorDomain: String { "AuthHub.AHFlowError" }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make("The Authentication Hub sign-in failed", description)]
    }
}

extension AHEncryptionError: CustomNSError {
    public static var errorDomain: String { "AuthHub.AHEncryptionError" }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make("A field could not be encrypted for the Authentication Hub", description)]
    }
}

extension AuthHubEndpoint.BuildError: CustomNSError {
    public static var errorDomain: String { "AuthHub.AuthHubEndpoint.BuildError" }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make("The Authentication Hub request could not be built", description)]
    }
}
