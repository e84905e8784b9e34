import Foundation
import NIOCore
import NIOPosix

/// A loopback TCP server that misbehaves on purpose: it writes `reply` (possibly a truncated HTTP
/// response) and then either closes the connection or keeps it open without another byte.
final class RawSocketServer: Sendable {
    private let channel: any Channel
    let port: Int

    init(reply: String, thenClose: Bool) async throws {
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Responder(reply: reply, thenClose: thenClose))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)/oauth/token") ?? URL(fileURLWithPath: "/") }

    func stop() async { try? await channel.close() }

    private final class Responder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let reply: String
        let thenClose: Bool

        init(reply: String, thenClose: Bool) {
            self.reply = reply
            self.thenClose = thenClose
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // Answer once the request head has arrived; ignore everything after.
            guard !reply.isEmpty else { return }
            let buffer = context.channel.allocator.buffer(string: reply)
            let channel = context.channel
            let close = thenClose
            context.writeAndFlush(NIOAny(buffer)).whenComplete { _ in
                if close { channel.close(promise: nil) }
            }
        }
    }
}
