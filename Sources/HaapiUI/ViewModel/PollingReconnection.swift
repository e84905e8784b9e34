import Foundation

/// A polling step waiting through a bad network (``HaapiFlowViewModel/reconnecting``): the last poll failed in a
/// way that passes, and the next one is scheduled.
public struct PollingReconnection: Sendable, Equatable {
    /// How many polls in a row have failed.
    public let attempt: Int
    /// Why the last one failed, for a person.
    public let reason: String
    /// When the next poll goes out.
    public let nextPoll: Date

    /// The longest wait between two polls, whatever the server asks: a `Retry-After` of an hour would outlast
    /// the step.
    public static let longestWait: TimeInterval = 30
    /// The longest wait the back-off reaches when the server asked for none, so a poll follows soon after the
    /// network is back.
    public static let longestBackOff: TimeInterval = 10

    /// Whether a poll that failed with `error` leaves the step waiting: an answer lost, a timeout, no connection,
    /// an unreadable answer, or a server that said "not now" (502, 503, 504). A cancel, a refusal or a broken
    /// configuration ends the flow as before.
    public static func passes(_ error: any Error) -> Bool {
        guard let error = error as? HaapiError else { return false }
        switch error {
        case .communication(_, let cause as TransportError):
            return cause != .cancelled && !(cause.isTooLarge)
        case .communication(_, is ServerUnavailable):
            return true
        case .serverError(_, _, let status):
            return ServerUnavailable.statuses.contains(status)
        default:
            return false
        }
    }

    /// The wait the server asked for in its `Retry-After`, when the failure carries one.
    public static func askedWait(_ error: any Error) -> TimeInterval? {
        guard case .communication(_, let unavailable as ServerUnavailable)? = error as? HaapiError else { return nil }
        return unavailable.retryAfter
    }

    /// The wait before poll number `attempt + 1`: what the server asked (at least the step's interval, at most
    /// ``longestWait``), else the step's interval doubled each failure up to ``longestBackOff``.
    public static func wait(attempt: Int, interval: TimeInterval, asked: TimeInterval?) -> TimeInterval {
        if let asked { return min(max(asked, interval), longestWait) }
        let doubled = interval * pow(2, Double(min(max(attempt - 1, 0), 16)))
        return min(doubled, max(longestBackOff, interval))
    }
}

extension TransportError {
    fileprivate var isTooLarge: Bool {
        if case .responseTooLarge = self { return true }
        return false
    }
}
