import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP listener on a free loopback port that closes every connection as soon as it is accepted, and counts
/// them: a client that retries a failed connection (a TLS handshake cut short) shows up as more than one.
final class DroppingListener: Sendable {
    private let channel: any Channel
    private let accepted: NIOLockedValueBox<Int>
    let port: Int

    /// How many connections were accepted so far.
    var connections: Int { accepted.withLockedValue { $0 } }

    init() async throws {
        let accepted = NIOLockedValueBox(0)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                accepted.withLockedValue { $0 += 1 }
                return channel.close()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        self.accepted = accepted
        port = channel.localAddress?.port ?? 0
    }

    func stop() async {
        try? await channel.close()
    }
}
