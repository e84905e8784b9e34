import ChildProcesses
import Foundation
import HaapiRawClient
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `haapi serve` with an output nobody reads, and with its reader gone (issue 51 item 2): lines go through one
/// writer thread and a bounded queue, so requests are answered all the same, dropped lines are counted and
/// reported, and a closed output ends the log, not the server.
@Suite("haapi serve with a stalled or closed output", .timeLimit(.minutes(2)))
struct StalledOutputTests {
    /// `haapi serve` writing to a pipe; returns the process, the pipe and the port (read from the summary).
    static func serve() async throws -> (ChildProcess, Pipe, Int) {
        let executable = try #require(CLIRunner.executable)
        let pipe = Pipe()
        let process = ChildProcess(executable, arguments: ["serve", "--port", "0"], output: .pipe(pipe), error: .null)
        try process.run()
        let reader = pipe.fileHandleForReading
        let summary = try await CLIRunner.onOwnThread { () -> String in
            var text = ""
            while !text.contains("Ctrl-C") {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }
        let base = try #require(
            summary.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("http://localhost:") })
        let port = try #require(base.split(separator: ":").last.flatMap { Int($0) })
        return (process, pipe, port)
    }

    /// Refused requests (each a line), and whether /health answered every probe meanwhile.
    static func flood(port: Int, refusals: Int) async throws -> Bool {
        let base = "http://127.0.0.1:\(port)"
        for index in 0..<refusals {
            _ = try await RawHTTP.send("GET", base + "/oauth/userinfo?n=\(index)")
        }
        var answered = 0
        for _ in 0..<6 where try await RawHTTP.send("GET", base + "/health").status == 200 { answered += 1 }
        return answered == 6
    }

    @Test("nobody reads: requests are answered, lines beyond the queue are dropped and the count is written later")
    func nobodyReads() async throws {
        let (process, pipe, port) = try await Self.serve()
        defer { process.terminate() }
        // 1,500 lines of about 200 bytes: far more than a pipe holds (64 KiB) and than the queue (1,024 lines).
        #expect(try await Self.flood(port: port, refusals: 1_500))
        #expect(process.isRunning)
        // The reader comes back: what was queued comes out, and the count of what was dropped.
        let reader = pipe.fileHandleForReading
        let text = try await CLIRunner.onOwnThread { () -> String in
            var text = ""
            let end = Date().addingTimeInterval(20)
            while !text.contains("dropped: the output was not read"), Date() < end {
                text += String(decoding: reader.availableData, as: UTF8.self)
            }
            return text
        }
        let dropped = try #require(text.firstMatch(of: /haapi serve: (\d+) lines dropped: the output was not read/))
        #expect((1...1_500).contains(Int(dropped.output.1) ?? 0), "\(dropped.output.0)")
        #expect(text.contains("[oauth.access-token-invalid]") || text.contains("401"))
    }

    @Test("the reader goes away: logging ends, the server goes on")
    func readerGone() async throws {
        let (process, pipe, port) = try await Self.serve()
        defer { process.terminate() }
        try pipe.fileHandleForReading.close()
        #expect(try await Self.flood(port: port, refusals: 50))
        #expect(process.isRunning, "the server died when its output went away")
    }
}
