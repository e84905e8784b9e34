import Foundation

/// The one automatic retry the SDK makes: a safe request (GET or HEAD, RFC 9110 §9.2.1) whose answer was lost
/// (`TransportError.answerLost`: the connection was reset or closed before the answer was complete) is sent once
/// more. Asking again cannot change anything on the server, and a phone loses connections all the time (a cell
/// hand-over, a keep-alive connection the server already closed). The caller builds the request again for the
/// second attempt, so it carries a new DPoP proof (the server has seen the first proof's `jti`). A POST is never
/// sent again by itself: its first attempt may have been processed, and the error says so.
///
/// A timeout is not retried: a server that kept a request for the whole deadline would keep the user waiting
/// twice as long; nor is a connection that could not be made (nothing was lost, and the network needs a moment).
public enum LostAnswerRetry {
    /// Whether a lost answer to a request with `method` is asked for again.
    public static func applies(to method: String) -> Bool {
        let method = method.uppercased()
        return method == "GET" || method == "HEAD"
    }

    /// Whether `error` is a lost answer.
    public static func isLostAnswer(_ error: HaapiError) -> Bool {
        if case .communication(_, let cause as TransportError) = error, case .answerLost = cause { return true }
        return false
    }

    /// `attempt`, and once more when the answer to this safe request was lost.
    public static func run<Value>(
        method: String, url: URL, isolation: isolated (any Actor)? = #isolation,
        _ attempt: () async throws(HaapiError) -> Value
    ) async throws(HaapiError) -> Value {
        do {
            return try await attempt()
        } catch let error where applies(to: method) && isLostAnswer(error) {
            HaapiLogger.info(
                DriverFollowUpTag.http, "the answer to \(method) \(sensitive: url.path) was lost; asking once more")
            return try await attempt()
        }
    }

    /// `attempt` with a transport's own errors, and once more when the answer to this safe request was lost.
    public static func run<Value>(
        method: String, url: URL, isolation: isolated (any Actor)? = #isolation,
        _ attempt: () async throws(TransportError) -> Value
    ) async throws(TransportError) -> Value {
        do {
            return try await attempt()
        } catch .answerLost(let detail) where applies(to: method) {
            HaapiLogger.info(
                DriverFollowUpTag.http,
                "the answer to \(method) \(sensitive: url.path) was lost (\(detail)); asking once more")
            return try await attempt()
        }
    }
}
