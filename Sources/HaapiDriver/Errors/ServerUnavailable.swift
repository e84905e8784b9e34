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
        let blank: Set<Character> = [" ", "\t"]
        guard let raw = value, raw.utf8.count <= 64 else { return nil }
        let value = String(raw.drop { blank.contains($0) }.reversed().drop { blank.contains($0) }.reversed())
        guard !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            // A huge number is a very long wait, not an overflow.
            let digits = value.drop { $0 == "0" }
            return digits.count > 9 ? 999_999_999 : TimeInterval(Int(digits) ?? 0)
        }
        guard let date = imfFixdate(value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7), read by hand: Foundation's
    /// `DateFormatter` keeps caches a fuzzer's leak check reports, and the format is fixed.
    static func imfFixdate(_ text: String) -> Date? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let days = ["Mon,", "Tue,", "Wed,", "Thu,", "Fri,", "Sat,", "Sun,"]
        guard parts.count == 6, days.contains(String(parts[0])), parts[5] == "GMT", parts[1].count == 2,
            parts[3].count == 4, let day = Int(parts[1]), (1...31).contains(day),
            let month = months.firstIndex(of: String(parts[2])).map({ $0 + 1 }), let year = Int(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int(clock[0]),
            let minute = Int(clock[1]), let second = Int(clock[2]), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        // Days from 1970-01-01 to the date in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let daysSinceEpoch = era * 146_097 + dayOfEra - 719_468
        return Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch * 86_400 + hour * 3_600 + minute * 60 + second))
    }
}
