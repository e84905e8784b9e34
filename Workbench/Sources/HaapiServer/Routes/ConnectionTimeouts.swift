import Hummingbird
import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// How long a connection may keep the server waiting. A connection that sends nothing (between requests, or in
/// the middle of a request's head) is closed after `idle`; a request whose head has come must be read to its
/// end within `read`. Together they close a half-sent request within 30 s by default, so slow or stalled
/// clients cannot hold the server's file descriptors.
public struct ConnectionTimeouts: Sendable {
    public var idle: Duration
    public var read: Duration

    public init(idle: Duration = .seconds(30), read: Duration = .seconds(30)) {
        self.idle = idle
        self.read = read
    }

    public static let standard = ConnectionTimeouts()

    /// Hummingbird's HTTP/1.1 server with these limits (its idle timeout, and ``RequestReadDeadline``), each
    /// connection answered on its own event loop of `loops` (``ConnectionOnItsLoop``).
    func http1(on loops: ServerLoops) -> HTTPServerBuilder {
        let read = TimeAmount(read)
        let idle = TimeAmount(idle)
        return HTTPServerBuilder { responder in
            ConnectionOnItsLoop(
                inner: HTTP1Channel(
                    responder: responder,
                    configuration: .init(
                        additionalChannelHandlers: [RequestReadDeadline(limit: read)], idleTimeout: idle)),
                loops: loops)
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

/// Closes a connection whose request, once its head has come, is not read to its end within `limit` (a body
/// trickled a byte at a time). Hummingbird's idle timeout covers a head that never completes.
final class RequestReadDeadline: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let limit: TimeAmount
    private var deadline: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            deadline?.cancel()
            let channel = context.channel
            deadline = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
        case .end:
            deadline?.cancel()
            deadline = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }
}
