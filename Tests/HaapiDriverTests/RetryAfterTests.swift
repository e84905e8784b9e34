import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

/// `Retry-After` as a 502/503/504 carries it (RFC 9110 §10.2.3), read into `ServerUnavailable.retryAfter`.
@Suite("Retry-After")
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test("seconds, an IMF-fixdate, and everything else refused")
    func values() {
        #expect(ServerUnavailable.retryAfter("120", now: Self.now) == 120)
        #expect(ServerUnavailable.retryAfter(" 0007\t", now: Self.now) == 7)
        #expect(ServerUnavailable.retryAfter("99999999999999999999", now: Self.now) == 999_999_999)
        #expect(ServerUnavailable.retryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now: Self.now) == 30)
        #expect(ServerUnavailable.retryAfter("Thu, 01 Jan 1970 00:00:00 GMT", now: Self.now) == 0, "the past")
        #expect(
            ServerUnavailable.retryAfter("Tue, 29 Feb 2028 23:59:59 GMT", now: Date(timeIntervalSince1970: 0))
                == 1_835_481_599)
        for refused in [
            "", "  ", "-5", "1.5", "soon", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
            "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Now 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT", String(repeating: "1", count: 65),
        ] {
            #expect(ServerUnavailable.retryAfter(refused, now: Self.now) == nil, "\(refused)")
        }
        #expect(ServerUnavailable.retryAfter(nil, now: Self.now) == nil)
    }
}
