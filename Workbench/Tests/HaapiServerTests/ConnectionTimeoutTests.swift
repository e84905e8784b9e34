import Foundation
import HaapiRawClient
import Testing

@testable import HaapiServer

/// Connections that keep the server waiting are closed (issue 51 item 4): a request head that never
/// completes after the idle timeout, a body trickled past the read deadline. The limits are 30 s each by
/// default; these servers use 1 s so the test runs in seconds.
@Suite("Connection timeouts: half-sent requests are closed", .timeLimit(.minutes(1)))
struct ConnectionTimeoutTests {
    /// `body` on a thread of its own: the socket calls block.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    @Test(
        "a half-sent head and a trickled body are closed at their limits; a whole request on a kept-alive connection is answered"
    )
    func halfSent() async throws {
        let server = try DevServer(configuration: try TestConfiguration.make(), store: ServerStore(path: nil))
        let running = try await server.start(timeouts: ConnectionTimeouts(idle: .seconds(1), read: .seconds(1)))
        defer { Task { await running.stop() } }
        let port = running.port
        let head = try await Self.onThread {
            let socket = try RawSocket(port: port)
            socket.send("GET /health HTTP/1.1\r\nHost: localhost\r\n")
            return socket.readUntilClosed(seconds: 10)
        }
        #expect(head.closed && head.text.isEmpty, "a head that never ends is closed without an answer: \(head.text)")
        let body = try await Self.onThread {
            let socket = try RawSocket(port: port)
            socket.send(
                "POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n"
            )
            var closed = false
            // A byte every 0.3 s: the connection is never idle, but the request does not end in time.
            for _ in 0..<20 where !closed {
                socket.send("a")
                closed = socket.readUntilClosed(seconds: 0.3).closed
            }
            return closed
        }
        #expect(body, "a trickled body is closed at the read deadline")
        let kept = try await Self.onThread {
            let socket = try RawSocket(port: port)
            socket.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            return socket.readUntilClosed(seconds: 5)
        }
        #expect(kept.text.hasPrefix("HTTP/1.1 200"), "\(kept.text)")
        #expect(kept.closed, "and the idle connection is closed after its answer")
    }
}
