import Foundation

/// A HAAPI request answered 502, 503 or 504 without a HAAPI step or problem: a gateway, a load balancer or the
/// server itself said it cannot answer now. It is the cause of a `HaapiError.communication`, retryable after a
/// delay; `retryAfter` is how long the server asked to wait, when it said (`Retry-After`).
public struct ServerUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    /// 502, 503 or 504.
    public let statusCode: Int
    /// Seconds to wait before the next attempt, from `Retry-After` (seconds, or an HTTP date); `nil` when the
    /// answer had none or an unreadable one.
    public let retryAfter: TimeInterval?

    /// The statuses that mean "not now" rather than "no".
    public static let statuses: Set<Int> = [502, 503, 504]

    /// The value `response` carries, if its status is one of ``statuses``.
    public init?(_ response: HTTPResponse, now: Date = Date()) {
        guard Self.statuses.contains(response.statusCode) else { return nil }
        statusCode = response.statusCode
        retryAfter = Self.retryAfter(response.header("retry-after"), now: now)
    }

    /// A value from its parts (tests, and transports that read the status themselves).
    public init(statusCode: Int, retryAfter: TimeInterval?) {
        self.statusCode = statusCode
        self.retryAfter = retryAfter
    }

    public var description: String {
        let wait = retryAfter.map { ", retry after \(TransportError.seconds($0)) s" } ?? ""
        return "the server is unavailable (HTTP \(statusCode)\(wait))"
    }

    /// A `Retry-After` value (RFC 9110 §10.2.3) in seconds from `now`: a non-negative whole number of seconds, or
    /// an IMF-fixdate. Anything else, or a date in the past, is `nil`; a date is at least 0.
    public static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty, value.utf8.count <= 64
        else { return nil }
        if value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // A huge number is a very long wait, not an overflow.
            let digits = value.drop { $0 == "0" }
            return digits.count > 9 ? 999_999_999 : TimeInterval(Int(digits) ?? 0)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
