import Dispatch
import Foundation
@_spi(Tooling) import HaapiDriver

/// Runs password hashing (a tenth of a second of PBKDF2 each, more in debug builds) and form `accept` patterns
/// (each within its time budget, `AcceptPattern`) on a few dedicated threads instead of the event loops that
/// serve requests, so logins cannot stall every other endpoint.
///
/// Bounded twice: `workers` threads hash at once (one fewer than the cores, at least one and at most four),
/// and at most `maxWaiting` checks wait for a thread; beyond that a check fails at once with `busy`, which
/// the routes turn into a retryable error. One core is always left to the request threads: on two cores, two
/// hashing threads took nearly all of both while clients logged in (`/health` at 0.45× its idle rate, p99
/// 7 ms, scripts/bench.sh); with one, 0.66× (scripts/bench/health-under-logins.sh, docs/BENCHMARKS.md). The
/// threads keep the normal priority: at a lower one, logins starve on a machine busy with other work (nice 5
/// in an earlier round; nice 10 made `haapi check`'s login time out while the test suite ran).
///
/// The threads start on first use and end when the pool is released.
final class PasswordHashingPool: Sendable {
    enum Failure: Error { case busy }

    private let jobs: JobQueue
    private let workers: Int
    private let maxWaiting: Int
    private let started = LockedValue(false)
    static let threadName = "haapi.password-hashing"

    init(workers: Int = max(1, min(ProcessInfo.processInfo.activeProcessorCount - 1, 4)), maxWaiting: Int = 256) {
        self.workers = max(workers, 1)
        self.maxWaiting = maxWaiting
        jobs = JobQueue()
    }

    deinit {
        jobs.close(workers: workers)
    }

    /// Whether the caller runs on one of the pools' threads (for tests: the work must not run on a request thread).
    static var isOnPoolThread: Bool { Thread.current.threadDictionary[threadName] as? Bool == true }

    /// Jobs run to completion so far: a password check is one job whatever the account.
    var completedJobs: Int { jobs.completed }

    /// Runs `work` on one of the pool's threads and returns its result.
    func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async throws(Failure) -> Result {
        startWorkersOnce()
        let jobs = self.jobs
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result?, Never>) in
            let job: Job = {
                let value = work()
                jobs.finished()  // counted before the caller resumes, so it sees its own job counted
                continuation.resume(returning: value)
            }
            if !jobs.enqueue(job, limit: maxWaiting + workers) { continuation.resume(returning: nil) }
        }
        guard let result else { throw .busy }
        return result
    }

    private func startWorkersOnce() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        let jobs = self.jobs  // the threads hold the queue, not the pool, so the pool can be released
        for _ in 0..<workers {
            let thread = Thread {
                Thread.current.threadDictionary[Self.threadName] = true
                while let job = jobs.next() { job() }
            }
            thread.name = Self.threadName
            thread.start()
        }
    }
}

/// A password check to run; it counts itself finished and wakes its caller.
private typealias Job = @Sendable () -> Void

/// The jobs waiting for a worker, and how many have run.
private final class JobQueue: Sendable {
    private let state = LockedValue((waiting: [Job](), head: 0, running: 0, completed: 0, closed: false))
    private let available = DispatchSemaphore(value: 0)

    /// Queues `job` unless `limit` jobs are already waiting or running.
    func enqueue(_ job: @escaping Job, limit: Int) -> Bool {
        let accepted = state.withLock { state in
            guard !state.closed, state.waiting.count - state.head + state.running < limit else { return false }
            state.waiting.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    /// Blocks until a job is queued; nil once the queue is closed.
    func next() -> Job? {
        available.wait()
        return state.withLock { state in
            guard !state.closed, state.head < state.waiting.count else { return nil }
            let job = state.waiting[state.head]
            state.head += 1
            state.running += 1
            // Drop the jobs already taken, so a queue that never drains does not grow without end.
            if state.head == state.waiting.count {
                state.waiting.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head >= 64, state.head * 2 >= state.waiting.count {
                state.waiting.removeFirst(state.head)
                state.head = 0
            }
            return job
        }
    }

    func finished() {
        state.withLock {
            $0.running -= 1
            $0.completed += 1
        }
    }

    var completed: Int { state.get().completed }

    /// Ends the worker threads once they are idle.
    func close(workers: Int) {
        state.withLock { $0.closed = true }
        for _ in 0..<workers { available.signal() }
    }
}
