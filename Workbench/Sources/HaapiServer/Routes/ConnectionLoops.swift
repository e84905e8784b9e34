@_spi(Tooling) import HaapiDriver
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// Runs each HTTP connection's task on the event loop that reads its socket, instead of on Swift's global pool.
///
/// On Swift's pool a request crosses three threads: the event loop reads it and wakes a pool thread, which
/// answers and wakes the event loop again to write. Measured side by side on the 2-core machine
/// (docs/BENCHMARKS.md, "Where handlers run"): on its own loop the token endpoint answers 14 % more requests a
/// second and `/health` keeps 0.80 of its idle rate while two clients log in, against 0.64 on the pool.
///
/// Nothing a handler awaits blocks the loop: the database goes through GRDB's own queues (`ServerStore`),
/// password hashing through `PasswordHashingPool`, the output through `LineWriter`; what runs on the loop is
/// parsing, signature checks and JSON.
struct ConnectionOnItsLoop<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner
    let loops: ServerLoops

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop, of: loops)) {
                await inner.handle(value: value, logger: logger)
            }
        } else {
            await inner.handle(value: value, logger: logger)
        }
    }
}

/// The event loops one running server answers on: created by ``DevServer/start`` (one a core) and shut down when
/// that server's service group has returned.
///
/// A job may still come for a loop after that: a task that outlives the server (one an actor's work put there,
/// a task a handler started) keeps the executor preference of the connection it came from. SwiftNIO drops a job
/// handed to a loop that has shut down, and the task would never resume; so once `close()` has begun, jobs go to
/// Swift's global executor instead. The flag and the hand-over share one lock, so no job reaches a loop after
/// its shutdown began.
final class ServerLoops: Sendable {
    let group: MultiThreadedEventLoopGroup
    private let open = LockedValue(true)

    init() {
        group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    }

    /// Hands `job` to `loop` while the loops are open; returns false once they are closing.
    func execute(on loop: any EventLoop, _ job: @escaping @Sendable () -> Void) -> Bool {
        open.withLock { open in
            if open { loop.execute(job) }
            return open
        }
    }

    /// No job reaches the loops from now on; then they stop.
    ///
    /// SwiftNIO finishes a closed channel's teardown in tasks it queues on that channel's loop, and a teardown
    /// can queue another (a listener whose bind failed does): two rounds of an empty task on every loop let
    /// them run, so nothing is scheduled on a loop after it stopped.
    func close() async {
        open.set(false)
        for _ in 0..<2 {
            for loop in group.makeIterator() { try? await loop.submit {}.get() }
        }
        try? await group.shutdownGracefully()
    }
}

/// A task executor that runs every job on one of a server's event loops (``ServerLoops``), or on Swift's global
/// executor once those loops are closing.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop
    let loops: ServerLoops

    init(_ loop: any EventLoop, of loops: ServerLoops) {
        self.loop = loop
        self.loops = loops
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let handed = loops.execute(on: loop) { unowned.runSynchronously(on: self.asUnownedTaskExecutor()) }
        if !handed { globalConcurrentExecutor.enqueue(ExecutorJob(unowned)) }
    }
}
