import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 proxy on loopback that does to chosen requests what a phone's network does: it forwards each
/// request to the server and, as `rule` decides for that request, answers it, resets the connection after the
/// server has answered, stalls, cuts the answer short, trickles it, or answers in the server's place (a 503 with
/// `Retry-After`, a captive portal's page). In the spirit of Toxiproxy and OkHttp's MockWebServer socket
/// policies, but per request and in process, so a test says exactly which request meets which fault.
///
/// Keep-alive aware: a client connection carries any number of requests, each decided on its own, over one
/// upstream connection of its own (opened again when the server closed it). A reset is a real TCP reset
/// (`SO_LINGER` 0), as a phone sees when a connection dies under it.
///
/// Plain blocking sockets, one thread a connection: a test opens a handful. Every wait is bounded (a read waits
/// at most `idleLimit`), and `stop()` ends every connection.
public final class NetworkFaultProxy: @unchecked Sendable {
    /// What happens to one request.
    public enum Fault: Sendable, Equatable {
        /// Forwarded, and its answer delivered.
        case pass
        /// Forwarded and answered by the server; the client's connection is then reset, the answer unsent.
        case resetAfterForwarding
        /// The client's connection is reset before anything is forwarded: the server never sees the request.
        case resetBeforeForwarding
        /// Forwarded; the answer is held back for as long as the client waits (or the proxy runs).
        case stall
        /// Forwarded; half of the answer is sent, then the connection is closed.
        case truncate
        /// Forwarded; the answer is sent `bytes` at a time, one piece every `interval` seconds.
        case trickle(bytes: Int, interval: TimeInterval)
        /// Not forwarded: the proxy answers `status` (502, 503, 504) with an HTML page and `Retry-After` when given.
        case unavailable(status: Int, retryAfter: String?)
        /// Not forwarded: a captive portal's sign-in page (200, text/html), as a hotel's network answers.
        case captivePortal
    }

    /// A request as the rule sees it.
    public struct Request: Sendable {
        /// `GET`, `POST`, …
        public let method: String
        /// The request target: path and query.
        public let target: String
        /// 1 for the first request the proxy received, 2 for the next, across connections.
        public let number: Int
        /// 1 for the first request on its connection.
        public let numberOnConnection: Int
    }

    /// Decides each request's fault.
    public typealias Rule = @Sendable (Request) -> Fault

    /// The port the proxy listens on (127.0.0.1).
    public let port: Int
    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/") }
    private var upstreamPort = 0
    private let rule: Rule
    private let idleLimit: TimeInterval
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false
    private var requests = 0
    private var connections = 0
    private var openSockets: Set<Int32> = []
    private var decisions: [(Request, Fault)] = []

    /// Starts listening; requests go to the server on `upstreamPort` of 127.0.0.1, or, when it is 0, to the port
    /// `forward(to:)` names (a server whose public URL is the proxy's starts after it).
    public init(upstreamPort: Int = 0, idleLimit: TimeInterval = 60, rule: @escaping Rule) throws {
        self.upstreamPort = upstreamPort
        self.rule = rule
        self.idleLimit = idleLimit
        let socket = socket(AF_INET, Self.streamType, 0)
        guard socket >= 0 else { throw Failure("socket: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(socket, 64) == 0 else {
            close(socket)
            throw Failure("bind/listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        listener = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// Where requests go from now on: the server on `port` of 127.0.0.1.
    public func forward(to port: Int) {
        lock.withLock { upstreamPort = port }
    }

    /// Each request received so far, with the fault it met.
    public var log: [(request: Request, fault: Fault)] { lock.withLock { decisions.map { ($0.0, $0.1) } } }

    /// The client connections accepted so far.
    public var connectionsAccepted: Int { lock.withLock { connections } }

    /// Stops listening and ends every connection (a stalled answer included).
    public func stop() {
        // Under the lock: a socket closed meanwhile could see its number reused by another test's.
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for socket in openSockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    // MARK: - Connections

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            guard track(client) else {
                close(client)
                return
            }
            lock.withLock { connections += 1 }
            Thread { [self] in serve(client) }.start()
        }
    }

    /// Remembers an open socket for `stop()`; false once stopped.
    private func track(_ socket: Int32) -> Bool {
        lock.withLock {
            guard !stopped else { return false }
            openSockets.insert(socket)
            return true
        }
    }

    private func forget(_ socket: Int32) {
        lock.withLock { _ = openSockets.remove(socket) }
    }

    private func serve(_ client: Int32) {
        setTimeout(client)
        var incoming = Stream(socket: client)
        var upstream: Stream?
        var onConnection = 0
        defer {
            if let upstream { end(upstream.socket) }
            end(client)
        }
        while !isStopped {
            guard let request = incoming.readMessage(isRequest: true, idleLimit: idleLimit, stopped: { self.isStopped })
            else { return }
            onConnection += 1
            let info = lock.withLock { () -> Request in
                requests += 1
                return Request(
                    method: request.method, target: request.target, number: requests, numberOnConnection: onConnection
                )
            }
            let fault = rule(info)
            lock.withLock { decisions.append((info, fault)) }
            switch fault {
            case .resetBeforeForwarding:
                return reset(client)
            case .unavailable(let status, let retryAfter):
                let page = "<html><body><h1>\(status)</h1></body></html>"
                var head = "HTTP/1.1 \(status) Unavailable\r\nContent-Type: text/html\r\n"
                if let retryAfter { head += "Retry-After: \(retryAfter)\r\n" }
                head += "Content-Length: \(page.utf8.count)\r\n\r\n"
                guard send(client, Array((head + page).utf8)) else { return }
                continue
            case .captivePortal:
                let page = "<html><head><title>Wi-Fi sign-in</title></head><body>Accept the terms</body></html>"
                let answer =
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(page.utf8.count)"
                    + "\r\n\r\n" + page
                guard send(client, Array(answer.utf8)) else { return }
                continue
            default:
                break
            }
            guard let answer = forward(request, over: &upstream) else { return reset(client) }
            switch fault {
            case .resetAfterForwarding:
                return reset(client)
            case .stall:
                // Held until the client gives up (its socket reads the end) or the proxy stops.
                _ = incoming.waitForEnd(idleLimit: idleLimit, stopped: { self.isStopped })
                return
            case .truncate:
                _ = send(client, Array(answer.bytes.prefix(max(1, answer.bytes.count / 2))))
                return
            case .trickle(let size, let interval):
                var offset = 0
                while offset < answer.bytes.count, !isStopped {
                    let end = min(answer.bytes.count, offset + max(1, size))
                    guard send(client, Array(answer.bytes[offset..<end])) else { return }
                    offset = end
                    if offset < answer.bytes.count { Thread.sleep(forTimeInterval: interval) }
                }
            default:
                guard send(client, answer.bytes) else { return }
            }
            if answer.closes { return }
        }
    }

    /// Sends `request` upstream (over the connection's kept-alive upstream connection, or a new one) and reads
    /// the whole answer; nil when the server could not be reached or did not answer.
    private func forward(_ request: Message, over upstream: inout Stream?) -> Message? {
        for attempt in 0..<2 {
            if upstream == nil {
                guard let socket = connectUpstream() else { return nil }
                upstream = Stream(socket: socket)
            }
            guard var connection = upstream else { return nil }
            if send(connection.socket, request.bytes),
                let answer = connection.readMessage(
                    isRequest: false, requestMethod: request.method, idleLimit: idleLimit, stopped: { self.isStopped })
            {
                upstream = answer.closes ? nil : connection
                if answer.closes { end(connection.socket) }
                return answer
            }
            // A kept-alive connection the server had closed: once more on a new one.
            end(connection.socket)
            upstream = nil
            if attempt == 1 || isStopped { return nil }
        }
        return nil
    }

    private func connectUpstream() -> Int32? {
        let socket = socket(AF_INET, Self.streamType, 0)
        guard socket >= 0 else { return nil }
        var address = Self.loopback(port: lock.withLock { upstreamPort })
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0, track(socket) else {
            close(socket)
            return nil
        }
        setTimeout(socket)
        return socket
    }

    // MARK: - Sockets

    private static var streamType: Int32 {
        #if canImport(Glibc)
        Int32(SOCK_STREAM.rawValue)
        #else
        SOCK_STREAM
        #endif
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    /// Reads wait at most a quarter second, so a stopped proxy is noticed.
    private func setTimeout(_ socket: Int32) {
        var timeout = timeval(tv_sec: 0, tv_usec: 250_000)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var noSignal: Int32 = 1
        #if canImport(Darwin)
        setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
        #else
        _ = noSignal
        #endif
    }

    private func send(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { buffer -> Int in
                #if canImport(Glibc)
                Glibc.send(socket, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
                #else
                Darwin.send(socket, buffer.baseAddress, buffer.count, 0)
                #endif
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// A TCP reset: the peer's next read fails with ECONNRESET instead of seeing an orderly end.
    private func reset(_ socket: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        end(socket)
    }

    private func end(_ socket: Int32) {
        lock.withLock {
            if openSockets.remove(socket) != nil { close(socket) }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
