import AsyncHTTPClient
import Foundation
@_spi(Tooling) import HaapiDriver
import NIOCore
import NIOHTTP1
import NIOPosix

/// `HTTPTransport` over AsyncHTTPClient (SwiftNIO). It follows no redirects, bounds every exchange by a
/// deadline and the body by a size limit, and can present a client certificate (mTLS), trust only given
/// certificates, or pin server keys.
public final class AsyncHTTPClientTransport: HTTPTransport, Sendable {
    private let client: HTTPClient
    private let ownsClient: Bool
    private let pinned: PinnedTLSConnector?
    /// The deadline of an exchange that sets none, in seconds.
    public let timeout: TimeInterval
    /// The largest body accepted; a larger one is `TransportError.responseTooLarge`.
    public let maxResponseBytes: Int

    /// A transport with its own HTTP client, following `tls` when given; throws when the TLS settings are unusable.
    ///
    /// - Parameters:
    ///   - tls: pins, trusted roots, hostname checking and a client identity; `nil` for the system's trust.
    ///   - timeout: the deadline of an exchange that sets none, in seconds (the connect timeout is at most 10).
    ///   - maxResponseBytes: the largest body accepted.
    ///   - retriesFailedConnections: whether a connection that fails to open (refused, unreachable, a TLS
    ///     handshake cut short) is tried again until the connect timeout, as AsyncHTTPClient does by default (it
    ///     rides out a flaky network); `false` reports the first failure at once, which an interactive tool wants.
    public init(
        tls: TLSOptions? = nil, timeout: TimeInterval = 30, maxResponseBytes: Int = 4 * 1024 * 1024,
        retriesFailedConnections: Bool = true
    ) throws {
        let seconds = HTTPRequest.clampedDeadline(timeout)
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(Int64(max(1, min(seconds, 10)))), read: .seconds(Int64(max(1, seconds)))))
        configuration.connectionPool.retryConnectionEstablishment = retriesFailedConnections
        if let tls { configuration.tlsConfiguration = try tls.makeConfiguration() }
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        ownsClient = true
        pinned = try tls.flatMap { $0.keyPinnings.isEmpty ? nil : try PinnedTLSConnector(options: $0) }
        self.timeout = seconds
        self.maxResponseBytes = maxResponseBytes
    }

    private init(sharedClient: HTTPClient, timeout: TimeInterval) {
        client = sharedClient
        ownsClient = false
        pinned = nil
        self.timeout = HTTPRequest.clampedDeadline(timeout)
        maxResponseBytes = 4 * 1024 * 1024
    }

    private static let sharedClient = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: .init(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(10), read: .seconds(60))))

    /// A transport over one process-wide client (system trust, no client certificate).
    public static func shared(timeout: TimeInterval = 30) -> AsyncHTTPClientTransport {
        AsyncHTTPClientTransport(sharedClient: sharedClient, timeout: timeout)
    }

    deinit {
        // Non-blocking: the last reference may be dropped on an event-loop thread, where a synchronous
        // shutdown would deadlock.
        if ownsClient { _ = client.shutdown() }
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let deadline = request.deadline(default: timeout)
        if let pinned, let host = request.url.host, request.url.scheme == "https", !pinned.pins(for: host).isEmpty {
            return try await pinned.send(request, deadline: deadline, maxResponseBytes: maxResponseBytes)
        }
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method.uppercased())
        for header in request.headers { outgoing.headers.add(name: header.name, value: header.value) }
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await client.execute(outgoing, timeout: .milliseconds(Int64(deadline * 1000)))
            let buffer: ByteBuffer
            do {
                buffer = try await response.body.collect(upTo: maxResponseBytes)
            } catch is NIOTooManyBytesError {
                throw TransportError.responseTooLarge(limit: maxResponseBytes)
            }
            var headers: [String: String] = [:]
            for header in response.headers {
                let name = header.name.lowercased()
                headers[name] = headers[name].map { $0 + ", " + header.value } ?? header.value
            }
            return HTTPResponse(
                statusCode: Int(response.status.code), headers: headers, body: Data(buffer.readableBytesView),
                url: request.url)
        } catch let error as TransportError {
            throw error
        } catch let error as HTTPClientError {
            throw Self.map(error, deadline: deadline, url: request.url)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw Self.connectionFailure(error, url: request.url)
        }
    }

    static func map(_ error: HTTPClientError, deadline: TimeInterval, url: URL) -> TransportError {
        switch error {
        case .deadlineExceeded, .readTimeout, .writeTimeout: .timedOut(after: deadline)
        case .connectTimeout:
            .couldNotConnect("\(target(url)): no connection within \(TransportError.seconds(deadline)) s")
        case .cancelled: .cancelled
        // The connection closed before the whole answer arrived: the request had been written.
        case .remoteConnectionClosed, .bodyLengthMismatch: .answerLost("\(target(url)): \(error)")
        default: connectionFailure(error, url: url)
        }
    }

    private static func target(_ url: URL) -> String {
        "\(url.host ?? "the server"):\(url.port ?? (url.scheme == "https" ? 443 : 80))"
    }

    /// A failure below HTTP in words that name the host and port, instead of NIO's error dump, sorted by how far
    /// the request got: a connection that was never made (refused, no such name, TLS) is `couldNotConnect`; a
    /// connection that was reset or broke once in use is `answerLost`.
    static func connectionFailure(_ error: any Error, url: URL) -> TransportError {
        let target = target(url)
        let text = String(describing: error)
        let lowered = text.lowercased()
        if error is NIOConnectionError || lowered.contains("connection refused")
            || lowered.contains("connectionrefused")
        {
            return .couldNotConnect("\(target) refused the connection (is the server running?)")
        }
        if lowered.contains("name or service not known") || lowered.contains("nodename nor servname")
            || lowered.contains("no address")
        {
            return .couldNotConnect("the host name \(url.host ?? "") could not be resolved")
        }
        if lowered.contains("certificate") || lowered.contains("handshake") || lowered.contains("ssl") {
            return .couldNotConnect("\(target): the TLS handshake failed (\(text))")
        }
        if let parsing = error as? HTTPParserError {
            // The connection ended in the middle of the answer; anything else is an answer that is not HTTP.
            return parsing == .invalidEOFState
                ? .answerLost("\(target): the answer ended early") : .invalidResponse("\(target): \(parsing)")
        }
        if let io = error as? IOError, [ECONNRESET, EPIPE, ECONNABORTED].contains(io.errnoCode) {
            return .answerLost("\(target): \(text)")
        }
        if lowered.contains("reset by peer") || lowered.contains("broken pipe") || lowered.contains("eof") {
            return .answerLost("\(target): \(text)")
        }
        return .couldNotConnect("\(target): \(text)")
    }
}
