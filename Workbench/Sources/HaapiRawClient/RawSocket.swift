import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to a loopback port, for tests that must send a request in pieces (a half-sent head, a
/// trickled body) and see when the server closes the connection. Blocking calls: use it off the cooperative
/// pool (a thread of its own).
public final class RawSocket {
    private let descriptor: Int32

    public enum Failure: Error { case socket, connect }

    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure.socket }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure.connect
        }
    }

    deinit { close(descriptor) }

    public func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// Reads until the server closes the connection or `seconds` pass; returns what came and whether the
    /// connection was closed.
    public func readUntilClosed(seconds: Double) -> (text: String, closed: Bool) {
        var received: [UInt8] = []
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
            if count > 0 { received += buffer[..<count] }
            if count < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
                return (String(decoding: received, as: UTF8.self), true)
            }
        }
        return (String(decoding: received, as: UTF8.self), false)
    }
}
