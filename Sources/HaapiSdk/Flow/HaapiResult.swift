/// What each `HaapiManager` call ends in.
public enum HaapiResult: Sendable {
    /// The next step to show (or the final `OAuthAuthorizationResponseStep`).
    case representation(any HaapiRepresentation)
    /// The server's problem with the last request (invalid input, wrong credentials, …); the flow can go on.
    case problem(any ProblemRepresentation)
    /// The flow cannot go on as asked; usually a `HaapiError` (see its `recoverySuggestion`).
    case error(any Error)
}

/// Runs on the main actor, as UIKit and SwiftUI code expects: it may call the view controller's methods.
public typealias HaapiCompletionHandler = @MainActor @Sendable (HaapiResult) -> Void
