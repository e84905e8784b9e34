/// Every error the driver and the SDK report. Server problems inside a flow (`application/problem+json`)
/// are results, not errors; these are the cases where the flow cannot go on as asked.
public enum HaapiError: IdsvrError, CustomStringConvertible {
    /// An internal consistency check failed (a bug, or an input the SDK should have refused earlier).
    case assertionFailure(cause: (any Error)?)
    /// The attestation could not be produced (the attestation service failed).
    case attestationFailure(cause: (any Error)?)
    /// The attestation key could not be generated.
    case attestationKeyGenFailure(cause: (any Error)?)
    /// This device or build has no attestation support.
    case attestationNotSupported
    /// The server examined the attestation and refused it.
    case attestationRefusedByServer(cause: (any Error)?)
    /// No usable response: no connection, a lost answer, a timeout, a truncated or unreadable body (the cause is
    /// the transport's ``TransportError``), or a gateway that could not reach the server (``ServerUnavailable``).
    case communication(message: String, cause: (any Error)?)
    /// The DPoP key could not be created or loaded (no Secure Enclave, an unreadable key store).
    case dpopKeyCreationFailure(cause: (any Error)?)
    /// A proof could not be signed.
    case dpopProofCreationFailure(cause: (any Error)?)
    /// The DPoP mechanism failed (key unusable, or the server kept refusing the proof).
    case dpopProofFailure(message: String, cause: (any Error)?)
    /// Another open token manager has this name; close it first or use another name.
    case haapiTokenManagerAlreadyExists(name: String)
    /// The token manager was closed.
    case haapiTokenManagerIsClosed
    /// The token manager's token expired (the server refused it) and cannot be renewed: the manager was closed.
    case haapiTokenManagerIsExpired
    /// A call the current state does not allow (a request to another origin, a flow already finished).
    case illegalState(message: String)
    /// The configuration cannot work, and why.
    case invalidConfiguration(reason: String)
    /// A status code the operation does not expect, with a body that is not a protocol error.
    case invalidStatusCode(statusCode: Int)
    /// The server answered with an OAuth error (`{"error": …}`).
    case serverError(error: String, errorDescription: String, statusCode: Int)

    public var error: String {
        switch self {
        case .assertionFailure: "assertion_failure"
        case .attestationFailure: "attestation_failure"
        case .attestationKeyGenFailure: "attestation_key_gen_failure"
        case .attestationNotSupported: "attestation_not_supported"
        case .attestationRefusedByServer: "attestation_refused_by_server"
        case .communication: "communication"
        case .dpopKeyCreationFailure: "dpop_key_creation_failure"
        case .dpopProofCreationFailure: "dpop_proof_creation_failure"
        case .dpopProofFailure: "dpop_proof_failure"
        case .haapiTokenManagerAlreadyExists: "haapi_token_manager_already_exists"
        case .haapiTokenManagerIsClosed: "haapi_token_manager_is_closed"
        case .haapiTokenManagerIsExpired: "haapi_token_manager_is_expired"
        case .illegalState: "illegal_state"
        case .invalidConfiguration: "invalid_configuration"
        case .invalidStatusCode: "invalid_status_code"
        case .serverError(let error, _, _): error
        }
    }

    public var errorDescription: String {
        switch self {
        case .assertionFailure: "An internal check failed."
        case .attestationFailure: "The device attestation could not be produced."
        case .attestationKeyGenFailure: "The attestation key could not be created."
        case .attestationNotSupported: "This device does not support attestation."
        case .attestationRefusedByServer(let cause as HaapiError):
            if case .serverError(_, let description, _) = cause, !description.isEmpty {
                "The server refused the device attestation: \(description)."
            } else {
                "The server refused the device attestation."
            }
        case .attestationRefusedByServer: "The server refused the device attestation."
        case .communication(let message, _): "Communication with the server failed: \(message)."
        case .dpopKeyCreationFailure: "The DPoP key could not be created."
        case .dpopProofCreationFailure: "A DPoP proof could not be created."
        case .dpopProofFailure(let message, _): "DPoP failed: \(message)."
        case .haapiTokenManagerAlreadyExists(let name): "A HAAPI token manager named \"\(name)\" already exists."
        case .haapiTokenManagerIsClosed: "The HAAPI token manager is closed."
        case .haapiTokenManagerIsExpired: "The HAAPI access token expired and cannot be renewed."
        case .illegalState(let message): "Illegal state: \(message)."
        case .invalidConfiguration(let reason): "Invalid configuration: \(reason)."
        case .invalidStatusCode(let status): "The server answered with the unexpected status \(status)."
        case .serverError(let error, let description, let status):
            description.isEmpty
                ? "The server answered \(status) \(error)." : "The server answered \(status) \(error): \(description)."
        }
    }

    public var failureReason: String {
        switch self {
        case .assertionFailure, .illegalState, .haapiTokenManagerAlreadyExists:
            "The SDK was used in an unsupported way."
        case .attestationFailure, .attestationKeyGenFailure: "The platform attestation service failed."
        case .attestationNotSupported: "No attester is available on this device."
        case .attestationRefusedByServer: "The server's attestation policy does not accept this device."
        case .communication: "The network or the server did not deliver a usable response."
        case .dpopKeyCreationFailure, .dpopProofCreationFailure, .dpopProofFailure: "The device key could not sign."
        case .haapiTokenManagerIsClosed: "close() was called on the manager."
        case .haapiTokenManagerIsExpired: "The HAAPI access token's lifetime ended."
        case .invalidConfiguration: "The configuration is inconsistent."
        case .invalidStatusCode: "The server's response does not fit the protocol."
        case .serverError: "The server refused the request."
        }
    }

    public var recoverySuggestion: IdsvrErrorHandling {
        switch self {
        case .assertionFailure, .illegalState, .haapiTokenManagerAlreadyExists: .nonRecoverable(action: .fixIntegration)
        case .invalidConfiguration: .nonRecoverable(action: .fixConfiguration)
        case .attestationNotSupported, .attestationRefusedByServer: .nonRecoverable(action: .useDCRFallback)
        case .attestationFailure: .retryable(condition: .afterDelay)
        case .attestationKeyGenFailure, .dpopKeyCreationFailure, .dpopProofCreationFailure:
            .retryable(condition: .whenAppIsInForeground)
        case .dpopProofFailure: .retryable(condition: .whenAppIsInForeground)
        case .communication(_, let cause as TransportError):
            switch cause {
            // Nothing left, or no answer within the deadline: the network or the server needs a moment.
            case .couldNotConnect, .timedOut: .retryable(condition: .afterDelay)
            default: .retryable(condition: .immediately)
            }
        case .communication(_, is ServerUnavailable): .retryable(condition: .afterDelay)
        case .communication: .retryable(condition: .immediately)
        case .haapiTokenManagerIsClosed, .haapiTokenManagerIsExpired, .invalidStatusCode: .newHaapiFlow
        case .serverError(let error, _, let status):
            if error == "use_dpop_nonce" || status == 429 {
                .retryable(condition: .immediately)
            } else if status >= 500 {
                .retryable(condition: .afterDelay)
            } else if error == "invalid_client" || error == "unauthorized_client" || error == "invalid_scope" {
                .nonRecoverable(action: .fixConfiguration)
            } else {
                .newHaapiFlow
            }
        }
    }

    public var cause: (any Error)? {
        switch self {
        case .assertionFailure(let cause), .attestationFailure(let cause), .attestationKeyGenFailure(let cause),
            .attestationRefusedByServer(let cause), .communication(_, let cause), .dpopKeyCreationFailure(let cause),
            .dpopProofCreationFailure(let cause), .dpopProofFailure(_, let cause):
            cause
        default: nil
        }
    }

    public var description: String {
        cause.map { "\(errorDescription) (cause: \($0))" } ?? errorDescription
    }
}
