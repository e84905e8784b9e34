import Dispatch
import HaapiDriver
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import Testing

@testable import HaapiServer

/// A connection's task runs on the event loop of its channel from its first line to its last, across awaits
/// that resume from other threads (as GRDB's queues and the password pool resume it).
@Suite("Connections are served on their own event loop")
struct ConnectionLoopTests {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
    }

    /// Records, at each step of a pretend connection, whether it runs on the channel's loop.
    struct RecordingChild: ServerChildChannel {
        let seen = LockedValue<[Bool]>([])

        func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
            channel.eventLoop.makeSucceededFuture(Value(channel: channel))
        }

        func handle(value: Value, logger: Logger) async {
            let loop = value.channel.eventLoop
            seen.withLock { $0.append(loop.inEventLoop) }
            await Task.yield()
            seen.withLock { $0.append(loop.inEventLoop) }
            // Resumed from a Dispatch thread, as a database read or a password check resumes a handler.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { continuation.resume() }
            }
            seen.withLock { $0.append(loop.inEventLoop) }
        }
    }

    private func withChannel(_ body: (any Channel) async throws -> Void) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let channel = try await DatagramBootstrap(group: group).bind(host: "127.0.0.1", port: 0).get()
        try await body(channel)
        try await channel.close()
        try await group.shutdownGracefully()
    }

    @Test("every step of the connection's task runs on its channel's event loop")
    func onItsLoop() async throws {
        try await withChannel { channel in
            let child = RecordingChild()
            await ConnectionOnItsLoop(inner: child).handle(value: Value(channel: channel), logger: Logger(label: "t"))
            #expect(child.seen.withLock { $0 } == [true, true, true])
        }
    }

    @Test("without it the same task runs on Swift's pool, off the loop (the control)")
    func withoutIt() async throws {
        try await withChannel { channel in
            let child = RecordingChild()
            await child.handle(value: Value(channel: channel), logger: Logger(label: "t"))
            #expect(child.seen.withLock { $0 } == [false, false, false])
        }
    }
}
