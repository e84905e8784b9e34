import Dispatch
import Foundation
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

    /// Handlers run on the server's loops; a client in the same process (the demo, the tests) must not wait for them.
    /// No timing: the server's only loop is held until the client's connect has completed, and would be held until
    /// the 60-second escape if that connect needed the loop.
    @Test("a client on SwiftNIO's singleton connects while the server's only loop is held; on that loop it cannot")
    func clientIsNotHeldUpByServerWork() async throws {
        #expect(ServerEventLoops.group !== MultiThreadedEventLoopGroup.singleton)
        let serverLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try DevServer(configuration: TestConfiguration.make(), store: ServerStore(path: nil))
        let running = try await server.start(
            host: "127.0.0.1", port: 0, publicURL: nil, loopbackName: nil, logLevel: .warning, eventLoops: serverLoops)
        // Answering work that keeps the server's loop until the test lets it go.
        let release = DispatchSemaphore(value: 0)
        let releasedByTest = LockedValue<Bool?>(nil)
        serverLoops.next().execute {
            let released = release.wait(timeout: .now() + 60) == .success
            releasedByTest.withLock { $0 = released }
        }
        // The control: a connect made from the held loop cannot complete while it is held.
        let fromHeldLoop = ClientBootstrap(group: serverLoops).connect(host: "127.0.0.1", port: running.port)
        let heldConnectDone = LockedValue(false)
        fromHeldLoop.whenComplete { _ in heldConnectDone.withLock { $0 = true } }

        let elsewhere = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: running.port).get()
        #expect(heldConnectDone.withLock { $0 } == false)
        release.signal()
        let onceFree = try await fromHeldLoop.get()
        #expect(releasedByTest.withLock { $0 } == true, "the client's connect needed the server's held loop")
        try await elsewhere.close()
        try await onceFree.close()
        await running.stop()
        try await serverLoops.shutdownGracefully()
    }
}
