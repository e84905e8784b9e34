/// What every SDK error says about itself, so an app can decide what to do without parsing messages.
public protocol IdsvrError: Error, Sendable {
    /// A stable code for the error (the case name, or the server's `error`).
    var error: String { get }
    /// What failed, in one sentence.
    var errorDescription: String { get }
    /// Why it failed, when the SDK or the server knows.
    var failureReason: String { get }
    /// Whether and when retrying can help, or what must change first.
    var recoverySuggestion: IdsvrErrorHandling { get }
    /// The underlying error (a transport error, a storage error), when there is one.
    var cause: (any Error)? { get }
}

/// How an app can recover from an error.
public enum IdsvrErrorHandling: Sendable, Equatable {
    /// The same operation can succeed if it is tried again once `condition` holds.
    case retryable(condition: RetryCondition)
    /// The flow cannot continue; start a new authentication flow.
    case newHaapiFlow
    /// Retrying will not help until the app or its configuration changes as `action` says.
    case nonRecoverable(action: UnrecoverableAction)
}

/// When a retryable error is worth retrying.
public enum RetryCondition: Sendable, Equatable {
    /// A transient failure (network, a nonce race): retry now.
    case immediately
    /// The server is overloaded or failing: retry after a back-off.
    case afterDelay
    /// Device resources (key store, attestation service) may be unavailable in the background.
    case whenAppIsInForeground
}

/// What must change before an error that retrying cannot fix goes away.
public enum UnrecoverableAction: Sendable, Equatable {
    /// The configuration contradicts itself or the server's: fix it.
    case fixConfiguration
    /// The API was used in a way it does not support: fix the calling code.
    case fixIntegration
    /// This device cannot attest: use the DCR fallback (`HaapiAccessorBuilder.setDCRConfiguration`).
    case useDCRFallback
    /// The DPoP key cannot be used: switch the token binding (another `CryptoKeyType`) and log in again.
    case changeTokenBinding
}
