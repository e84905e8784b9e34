import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 message as it went by: its bytes, unchanged, and what the proxy needs to know of it.
struct Message {
    var bytes: [UInt8]
    /// The request's method (empty for a response).
    var method = ""
    /// The request's target (empty for a response).
    var target = ""
    /// Whether the connection ends after it (`Connection: close`, or a body delimited by the end).
    var closes = false
}

/// The bytes read from one socket, and the messages framed from them (Content-Length, chunked, or to the end).
struct Stream {
    let socket: Int32
    private var buffer: [UInt8] = []
    private static let headLimit = 256 * 1024
    private static let bodyLimit = 16 * 1024 * 1024

    init(socket: Int32) {
        self.socket = socket
    }

    /// The next whole message; nil at the end of the stream, on an error, after `idleLimit` seconds without a
    /// byte, or once `stopped` says so.
    mutating func readMessage(
        isRequest: Bool, requestMethod: String = "GET", idleLimit: TimeInterval, stopped: () -> Bool
    ) -> Message? {
        guard let headEnd = fill(until: { $0.firstRange(of: [13, 10, 13, 10])?.upperBound }, idleLimit, stopped)
        else { return nil }
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let start = lines.first?.split(separator: " ", maxSplits: 2).map(String.init) ?? []
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var message = Message(bytes: [])
        if isRequest {
            guard start.count >= 2 else { return nil }
            message.method = start[0]
            message.target = start[1]
        }
        message.closes = headers["connection"]?.lowercased().contains("close") == true
        let status = isRequest ? 0 : Int(start.count > 1 ? start[1] : "") ?? 0
        let bodiless = !isRequest && (requestMethod == "HEAD" || status / 100 == 1 || status == 204 || status == 304)
        var end: Int?
        if bodiless {
            end = headEnd
        } else if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            end = fill(until: { Self.chunkedEnd($0, from: headEnd) }, idleLimit, stopped)
        } else if let length = headers["content-length"].flatMap({ Int($0) }), length >= 0,
            length <= Self.bodyLimit
        {
            end = fill(until: { $0.count >= headEnd + length ? headEnd + length : nil }, idleLimit, stopped)
        } else if isRequest {
            end = headEnd
        } else {
            // A response without a length runs to the end of the connection.
            while readMore(idleLimit, stopped) == .more {}
            end = buffer.count
            message.closes = true
        }
        guard let end else { return nil }
        message.bytes = Array(buffer[..<end])
        buffer.removeFirst(end)
        return message
    }

    /// Waits until the peer ends the connection (or the limit passes, or the proxy stops); true at its end.
    mutating func waitForEnd(idleLimit: TimeInterval, stopped: () -> Bool) -> Bool {
        while true {
            switch readMore(idleLimit, stopped) {
            case .more: buffer.removeAll()
            case .ended: return true
            case .gaveUp: return false
            }
        }
    }

    /// Where a chunked body that starts at `start` ends, once it is all there.
    private static func chunkedEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while true {
            guard let lineEnd = bytes[index...].firstRange(of: [13, 10])?.lowerBound else { return nil }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0,
                size <= bodyLimit
            else { return nil }
            index = lineEnd + 2
            if size == 0 {
                // Trailers, then an empty line.
                return bytes[(index - 2)...].firstRange(of: [13, 10, 13, 10])?.upperBound
            }
            index += size + 2
            guard index <= bytes.count else { return nil }
        }
    }

    private enum Read { case more, ended, gaveUp }

    private mutating func fill(
        until complete: ([UInt8]) -> Int?, _ idleLimit: TimeInterval, _ stopped: () -> Bool
    ) -> Int? {
        while true {
            if let end = complete(buffer) { return end }
            guard buffer.count <= Self.headLimit + Self.bodyLimit, readMore(idleLimit, stopped) == .more else {
                return nil
            }
        }
    }

    /// One read into the buffer; the socket's own timeout (a quarter second) lets it check `stopped`.
    private mutating func readMore(_ idleLimit: TimeInterval, _ stopped: () -> Bool) -> Read {
        let deadline = Date().addingTimeInterval(idleLimit)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while Date() < deadline {
            if stopped() { return .gaveUp }
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                buffer.append(contentsOf: chunk[..<count])
                return .more
            }
            if count == 0 { return .ended }
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
            return .ended
        }
        return .gaveUp
    }
}
