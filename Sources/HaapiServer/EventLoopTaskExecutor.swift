import NIOCore
import NIOPosix

/// Runs the server's tasks on SwiftNIO's event loops, where its connections live, instead of on Swift's
/// cooperative pool.
///
/// Why: Hummingbird reads a request on an event loop and hands it to a task. On the cooperative pool that is a
/// hand-over between threads and back for every request: a wake-up of a pool thread, and a wake-up of the
/// event loop for the response. Measured on the 2-core bench machine, that made 2.14 context switches per DPoP
/// token request and 1.17 per `/health`; on the event loops 0.86 and 0.65 (docs/BENCHMARKS.md).
///
/// A job goes to the event loop of the thread that enqueues it when that thread is one of the group's loops
/// (`EventLoopGroup.any()` prefers the current loop), so a task resumed by its connection's loop stays on
/// it. From any other thread (a password-hashing thread finishing its work) it goes to the next loop in turn.
///
/// Used through `withTaskExecutorPreference` around the server's run, so it reaches the tasks the server
/// starts (the listener, one per connection) and nothing else in the process. Work that blocks (SQLite) then
/// blocks an event loop instead of a pool thread; password hashing already runs on threads of its own.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
final class EventLoopTaskExecutor: TaskExecutor {
    private let group: any EventLoopGroup

    init(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.group = group
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // Run as this task executor, so the task keeps running here until it hops to an actor or ends. The
        // closure holds `self`: the runtime's reference to the executor is unowned.
        group.any().execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
