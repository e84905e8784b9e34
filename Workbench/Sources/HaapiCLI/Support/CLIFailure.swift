import Foundation
@_spi(Tooling) import HaapiUI

/// A failure as the user reads it: one line on stderr starting `error: `, in words, naming what failed, and
/// the exit code that classifies it (`ExitCodes`). `--verbose` (or `HAAPI_VERBOSE=1`) adds the details.
struct CLIFailure: Error, CustomStringConvertible {
    var message: String
    let code: Int32
    let details: String?

    init(_ message: String, code: Int32 = ExitCodes.failure, details: String? = nil) {
        self.message = message
        self.code = code
        self.details = details
    }

    var description: String { message }

    /// What `error` means for the user: the words and the exit code, the same in every command.
    static func classify(_ error: any Error) -> CLIFailure {
        switch error {
        case let failure as CLIFailure:
            return failure
        case let error as HaapiError:
            return haapi(error)
        case let end as TerminalFlow.DeadEnd:
            return CLIFailure(end.description, code: end.refused ? ExitCodes.refused : ExitCodes.failure)
        case let error as TransportError, WebAuthnError.unreachable(let error):
            return CLIFailure(error.localizedDescription, code: ExitCodes.unavailable)
        case let error as HaapiUIError:
            switch error {
            case .flowCancelled: return CLIFailure("cancelled", code: ExitCodes.cancelled)
            case .problem(let type, let title):
                // A problem is the server refusing what was sent: credentials, a redirect URI or scope the
                // client may not use, a step out of turn.
                return CLIFailure(title ?? Self.problemWords(type), code: ExitCodes.refused, details: type)
            default: return CLIFailure(error.description)
            }
        case let error as any SentenceError:
            return CLIFailure(error.localizedDescription, details: String(describing: error))
        case let error as any CustomStringConvertible:
            // The tool's own errors say what failed in their description; Foundation's generic text would not.
            return CLIFailure(error.description)
        default:
            return CLIFailure(words(for: error), details: String(describing: error))
        }
    }

    /// An error's own words, except Foundation's "The operation could not be completed", which says nothing:
    /// then the file it names and why, or its domain and code.
    static func words(for error: any Error) -> String {
        let text = error.localizedDescription
        guard
            text.hasPrefix("The operation could not be completed")
                || text.hasPrefix("The operation couldn’t be completed")
        else { return text }
        let bridged = error as NSError
        if let path = bridged.userInfo[NSFilePathErrorKey] as? String {
            return "cannot use \(path): \(StandardStreams.unreadableReason(path, error))"
        }
        return "\(bridged.domain) error \(bridged.code)"
    }

    static func haapi(_ error: HaapiError) -> CLIFailure {
        var failure = refusal(error)
        // The rule a swift-haapi server named: where to read what it expected and what came.
        if let rule = error.serverRule, !failure.message.contains("rule \(rule)") {
            failure.message += " The server's rule \(rule): its log line and /inspector say what it expected."
        }
        return failure
    }

    private static func refusal(_ error: HaapiError) -> CLIFailure {
        let details = String(describing: error)
        switch error {
        case .communication(_, let cause as TransportError) where cause != .cancelled:
            // How far the request got, in its own words: never "could not be reached" for one the server may have
            // acted on. Each is 69 (unavailable).
            return CLIFailure(cause.sentence, code: ExitCodes.unavailable, details: details)
        case .communication(_, let unavailable as ServerUnavailable):
            let wait = unavailable.retryAfter.map { " It asked to try again in \(TransportError.seconds($0)) s." } ?? ""
            return CLIFailure(
                "The server is unavailable for now (HTTP \(unavailable.statusCode)).\(wait)",
                code: ExitCodes.unavailable,
                details: details)
        case .communication(let message, _):
            return CLIFailure(
                ErrorSentence.make("The server could not be reached", message), code: ExitCodes.unavailable,
                details: details)
        case .invalidStatusCode(let status) where status == 400 || status == 401 || status == 403:
            return CLIFailure(
                "The server refused the request (HTTP \(status), without an OAuth error).", code: ExitCodes.refused,
                details: details)
        case .invalidStatusCode(let status) where status == 404 || status == 406 || status == 415:
            return CLIFailure(
                "The server does not speak HAAPI here (it answered \(status)); check --server.",
                code: ExitCodes.unavailable,
                details: details)
        case .serverError("invalid_client", _, _), .serverError("unauthorized_client", _, _):
            return CLIFailure(
                "The server does not know this client or refused its credentials (\(error.errorDescription)) Check --client-id "
                    + "and the client's secret or key.", code: ExitCodes.refused, details: details)
        case .serverError(let code, _, let status):
            return CLIFailure(
                error.errorDescription,
                code: status >= 500
                    ? ExitCodes.unavailable : (code == "invalid_request" ? ExitCodes.failure : ExitCodes.refused),
                details: details)
        case .attestationRefusedByServer(let cause as HaapiError):
            // The server refuses attestation for a client it does not know: say that, not "attestation refused".
            if case .serverError("invalid_client", _, _) = cause { return refusal(cause) }
            // No attestation endpoint at all: this is not a HAAPI server (or not its base URL).
            if case .invalidStatusCode(let status) = cause, [404, 405, 406, 415].contains(status) {
                return CLIFailure(
                    "The server does not speak HAAPI here: its token endpoint answered \(status). Check --server (the server's base URL).",
                    code: ExitCodes.unavailable, details: details)
            }
            return CLIFailure(
                "The server refused this device's attestation (\(cause.errorDescription)) Is the client configured for "
                    + "the software attester?", code: ExitCodes.refused, details: details)
        case .attestationRefusedByServer:
            return CLIFailure(
                "The server refused this device's attestation; is the client configured for the software attester?",
                code: ExitCodes.refused, details: details)
        case .invalidConfiguration:
            return CLIFailure(error.errorDescription, code: ExitCodes.usage, details: details)
        default:
            return CLIFailure(error.errorDescription, details: details)
        }
    }

    /// The token endpoint's OAuth error (RFC 6749 §5.2) as a refusal.
    static func tokenEndpointRefused(_ error: ErrorTokenResponse) -> CLIFailure {
        let words = error.errorDescription.map { ": " + $0 } ?? ""
        var message = "The token endpoint refused the request (\(error.error)\(words))."
        if let rule = error.errorDescription.flatMap(ServerRuleID.parse) {
            message += " The server's rule \(rule): its log line and /inspector say what it expected."
        }
        return CLIFailure(message, code: ExitCodes.refused)
    }

    /// The last path segment of a problem type in words ("incorrect-credentials" → "incorrect credentials").
    static func problemWords(_ type: String) -> String {
        let last = type.split(separator: "/").last.map(String.init) ?? type
        return "The server reported: " + last.replacingOccurrences(of: "-", with: " ")
    }

    static var isVerbose: Bool {
        ProcessInfo.processInfo.environment["HAAPI_VERBOSE"].map { !$0.isEmpty && $0 != "0" } ?? false
            || CommandLine.arguments.contains("--verbose")
    }

    /// Prints the failure and exits with its code.
    func exit() -> Never {
        StandardStreams.printError("error: " + message)
        if CLIFailure.isVerbose, let details, details != message { StandardStreams.printError("  details: " + details) }
        Foundation.exit(code)
    }
}
