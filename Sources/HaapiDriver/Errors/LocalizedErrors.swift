import Foundation
@_spi(Tooling) import HaapiModel

// `localizedDescription` and the other `NSError` keys for the driver's errors (see `ErrorSentence`).
// `HaapiError` keeps the seed's `IdsvrError` members (`errorDescription`, `failureReason`,
// `recoverySuggestion` as the typed handling enum); their names clash with `LocalizedError`'s, so the
// bridge is `CustomNSError`'s user info instead.

extension HaapiError: CustomNSError {
    public static var errorDomain: String { "HaapiSdk.HaapiError" }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [
            NSLocalizedDescriptionKey: errorDescription,
            NSLocalizedFailureReasonErrorKey: failureReason,
            NSLocalizedRecoverySuggestionErrorKey: recoverySuggestion.sentence,
        ]
        if let cause { info[NSUnderlyingErrorKey] = cause as NSError }
        return info
    }

    /// Whether the same operation can succeed if it is tried again (now, later or in the foreground).
    public var isRetryable: Bool {
        if case .retryable = recoverySuggestion { return true }
        return false
    }

    /// The server asked for a DPoP nonce (`use_dpop_nonce`) and the SDK's own retry did not satisfy it.
    public var isDPoPNonceRequired: Bool {
        if case .serverError("use_dpop_nonce", _, _) = self { return true }
        return false
    }

    /// No usable answer arrived: no connection, a timeout, a cut or unreadable response.
    public var isNetworkError: Bool {
        if case .communication = self { return true }
        return false
    }

    /// The flow cannot go on: the app should start a new one.
    public var requiresNewFlow: Bool { recoverySuggestion == .newHaapiFlow }
}

extension IdsvrErrorHandling {
    /// What the suggestion means for a person using the app.
    public var sentence: String {
        switch self {
        case .retryable(.immediately): "Try again."
        case .retryable(.afterDelay): "Try again in a moment."
        case .retryable(.whenAppIsInForeground): "Try again with the app open."
        case .newHaapiFlow: "Start signing in again."
        case .nonRecoverable(.fixConfiguration): "The app's sign-in configuration needs to be fixed."
        case .nonRecoverable(.fixIntegration): "The app uses the sign-in SDK in a way it does not support."
        case .nonRecoverable(.useDCRFallback):
            "This device cannot attest itself; the app should register dynamically instead."
        case .nonRecoverable(.changeTokenBinding):
            "The device key cannot be used; sign in again with another kind of key."
        }
    }
}

extension TransportError: SentenceError {
    public static var failureContext: String { "The server could not be reached" }

    /// The sentence says how far the request got, as the case does: never "could not be reached" for a request
    /// the server may have acted on.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: sentence] }

    /// What happened, for a person: one sentence.
    public var sentence: String {
        switch self {
        case .couldNotConnect(let detail): ErrorSentence.make(Self.failureContext, detail)
        case .answerLost(let detail):
            "The connection was lost before the server's answer came (\(detail)); the server may have acted on the request."
        case .timedOut(let seconds): "The server did not answer within \(Self.seconds(seconds)) s."
        case .invalidResponse(let detail): ErrorSentence.make("The server's answer could not be read", detail)
        case .responseTooLarge(let limit): "The server's answer is larger than the \(limit) bytes accepted."
        case .cancelled: "The request was cancelled."
        }
    }
}

extension JOSEError: SentenceError {
    public static var failureContext: String { "A key or signature could not be used" }
}

extension StorageError: SentenceError {
    public static var failureContext: String { "The secure storage failed" }
}
