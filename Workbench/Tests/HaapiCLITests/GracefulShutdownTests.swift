import Foundation
import HaapiRawClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `haapi serve` on SIGTERM and SIGINT (issue 51 item 5): it stops accepting, lets the request in flight finish,
/// closes the database and exits 0.
@Suite("haapi serve stops gracefully", .timeLimit(.minutes(2)))
struct GracefulShutdownTests {
    @Test(
        "a request in flight when the signal comes is answered; then no new connection, the database closed, exit 0",
        arguments: [SIGTERM, SIGINT])
    func stop(signal: Int32) async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let database = directory.appendingPathComponent("server.db").path
        let (process, output) = try CLIRunner.start(["serve", "--port", "0", "--db", database])
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") })
        let port = try #require(base.split(separator: ":").last.flatMap { Int($0) })
        #expect(FileManager.default.fileExists(atPath: database + "-wal"), "the database runs in WAL mode")

        let answer = try await CLIRunner.onOwnThread { () -> (String, Bool) in
            let socket = try RawSocket(port: port)
            let body = "grant_type=client_credentials"
            socket.send(
                "POST /oauth/token HTTP/1.1\r\nHost: localhost:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                    + body.prefix(10))
            usleep(300_000)
            process.send(signal)
            usleep(700_000)
            // Stopped accepting: a new connection is refused while the one in flight is still served.
            let refused = (try? RawSocket(port: port)) == nil
            socket.send(String(body.dropFirst(10)))
            return (socket.readUntilClosed(seconds: 5).text, refused)
        }
        #expect(answer.0.hasPrefix("HTTP/1.1 401") || answer.0.hasPrefix("HTTP/1.1 400"), "\(answer.0)")
        #expect(answer.1, "a new connection was accepted after the signal")
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let printed = try String(contentsOf: output, encoding: .utf8)
        #expect(printed.hasSuffix("haapi serve: stopped\n"), "\(printed.suffix(200))")
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"), "closing checkpoints the log into the file")
    }
}
