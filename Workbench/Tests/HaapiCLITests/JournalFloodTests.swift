import Foundation
import Testing

#if canImport(Glibc)
import Glibc

/// A flood of refused requests against a `haapi serve` process of its own, so its RSS is the server's alone:
/// the journal the inspector reads keeps 500 requests, and nothing else a refused request touches grows.
@Suite("A flood of refused requests keeps haapi serve within the journal's budget", .timeLimit(.minutes(5)))
struct JournalFloodTests {
    /// The server's resident memory, from /proc.
    static func residentBytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
    }

    /// Sends `count` token requests with an unsupported grant over one keep-alive connection, `batch` at a
    /// time pipelined (HTTP/1.1), and reads every answer: a plain socket, so the client costs the server
    /// nothing but the requests.
    static func flood(port: Int, count: Int, from first: Int, batch: Int = 200, padding: Int = 512) throws {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw POSIXError(.EIO) }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var sent = 0
        while sent < count {
            let size = min(batch, count - sent)
            var requests = ""
            for index in sent..<(sent + size) {
                let body = "grant_type=flood-\(first + index)&client_id=client-\(first + index)"
                requests +=
                    "POST /oauth/token HTTP/1.1\r\nHost: localhost:\(port)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    + Self.paddingFields(padding) + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
            }
            let bytes = Array(requests.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { send(socketFD, $0.baseAddress, $0.count, 0) }
                guard written > 0 else { throw POSIXError(.EPIPE) }
                offset += written
            }
            // Every answer is a 400 whose body ends with the rule's bracket and the JSON's closing brace.
            var answered = 0
            var carry: [UInt8] = []
            let marker = Array("[oauth.grant-unsupported]\"}".utf8)
            while answered < size {
                let read = recv(socketFD, &buffer, buffer.count, 0)
                guard read > 0 else { throw POSIXError(.ECONNRESET) }
                carry += buffer[0..<read]
                var start = 0
                while let found = Self.find(marker, in: carry, from: start) {
                    answered += 1
                    start = found + marker.count
                }
                carry = Array(carry[start...].suffix(marker.count))
            }
            sent += size
        }
    }

    /// `bytes` of header fields, in fields of at most 2 KiB.
    static func paddingFields(_ bytes: Int) -> String {
        stride(from: 0, to: bytes, by: 2_048).enumerated().map { index, start in
            "X-Padding-\(index): \(String(repeating: "p", count: min(2_048, bytes - start)))\r\n"
        }.joined()
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where haystack[index] == needle[0] && Array(haystack[index..<(index + needle.count)]) == needle {
            return index
        }
        return nil
    }

    @Test("100,000 refused requests: the server's RSS grows by less than 10 MiB once its journal is full")
    func flood() async throws {
        let (server, output) = try CLIRunner.start(["serve", "--port", "0", "--log-format", "json"])
        defer { server.terminate() }
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") })
        let port = try #require(Int(base.split(separator: ":").last ?? ""))
        // Past the journal's 500 and the allocator's first arenas, then the measured flood.
        try Self.flood(port: port, count: 5_000, from: 0)
        let before = try #require(Self.residentBytes(server.processIdentifier))
        try Self.flood(port: port, count: 100_000, from: 5_000)
        let after = try #require(Self.residentBytes(server.processIdentifier))
        let growth = Double(after - before) / 1_048_576
        #expect(growth < 10, "haapi serve's RSS grew by \(growth) MiB over 100,000 refused requests")
        print(
            "JournalFloodTests: haapi serve RSS \(before / 1024) KiB → \(after / 1024) KiB over 100,000 refused requests"
        )
        // Each was refused with its line (the server writes to a file here; JSON, one object a line).
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.contains(#""rule":"oauth.grant-unsupported""#) }.count == 105_000)
    }

    @Test("2,000 refused requests with 64 KiB of headers each: RSS grows by less than the journal's 12.5 MiB bound")
    func heavyHeaders() async throws {
        let (server, output) = try CLIRunner.start(["serve", "--port", "0"])
        defer { server.terminate() }
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") })
        let port = try #require(base.split(separator: ":").last.flatMap { Int($0) })
        try Self.flood(port: port, count: 1_000, from: 0, batch: 20, padding: 64 * 1024)
        let before = try #require(Self.residentBytes(server.processIdentifier))
        try Self.flood(port: port, count: 2_000, from: 1_000, batch: 20, padding: 64 * 1024)
        let after = try #require(Self.residentBytes(server.processIdentifier))
        let growth = Double(after - before) / 1_048_576
        #expect(growth < 12.5, "haapi serve's RSS grew by \(growth) MiB over 2,000 requests of 64 KiB headers")
        print("JournalFloodTests: 64 KiB headers, RSS \(before / 1024) KiB → \(after / 1024) KiB over 2,000 requests")
    }
}
#endif
