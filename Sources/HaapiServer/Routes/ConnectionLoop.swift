import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// Runs each HTTP connection's task on the event loop that reads its socket, instead of on Swift's global pool.
///
/// Without it a request crosses three threads: the event loop reads it and wakes a pool thread, which answers
/// and wakes the event loop again to write. On two cores with one of them busy (hashing a password, or any
/// other process), each of those wake-ups can land on the busy core and wait for the scheduler's next tick:
/// `/health` at one connection had a p99 of 3.4 ms beside a `yes` process, and 2.1 ms while two clients logged
/// in, against 0.3 ms idle (docs/BENCHMARKS.md, "What stays"). On its own loop a request is read, answered and
/// written by one thread, as a C server answers it.
///
/// Nothing a handler awaits blocks the loop: the database goes through GRDB's own queues (`ServerStore`),
/// password hashing through `PasswordHashingPool`; what runs on the loop is parsing, signature checks and JSON.
struct ConnectionOnItsLoop<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value
    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
                await inner.handle(value: value, logger: logger)
            }
        } else {
            await inner.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 as Hummingbird's `.http1()` serves it, each connection on its own event loop
    /// (``ConnectionOnItsLoop``).
    static func http1OnConnectionLoops() -> HTTPServerBuilder {
        HTTPServerBuilder { responder in ConnectionOnItsLoop(inner: HTTP1Channel(responder: responder)) }
    }
}

/// The event loops every dev server of the process listens and answers on: a group of its own, not SwiftNIO's
/// singleton that AsyncHTTPClient (the SDK's Linux transport, the tests' raw client) uses.
///
/// Handlers run on these loops (``ConnectionOnItsLoop``). In a process that is a server and its own client (`haapi
/// demo`, the test suite) a shared group would let a burst of requests being answered hold up the client side's
/// I/O: under the full test suite a client's connect waited past AsyncHTTPClient's 10-second connect timeout while
/// the shared loops ran queued handler work. Created on first use and never shut down, like the singleton, so a
/// job handed to one of its loops always runs.
enum ServerEventLoops {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
}

/// A task executor that runs every job on one SwiftNIO event loop.
///
/// Only used with event loops that outlive the server (``ServerEventLoops``): a job handed to a loop that has shut
/// down would never run.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(_ loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
