import Dispatch
import Foundation

/// Runs password hashing (hundreds of milliseconds of PBKDF2 each) on a few dedicated threads instead of
/// the cooperative pool that serves requests, so a burst of logins cannot stall every other endpoint.
///
/// The pool is bounded twice: `workers` threads hash at once, and at most `maxWaiting` requests wait
/// for one; beyond that a check fails at once with `busy`, which the routes turn into a retryable error.
final class PasswordHashingPool: Sendable {
    enum Failure: Error { case busy }

    private let queues: [DispatchQueue]
    private let maxWaiting: Int
    /// Requests queued or running, the next queue to use, and the jobs finished so far.
    private let state = LockedValue((pending: 0, next: 0, completed: 0))
    private static let poolKey = DispatchSpecificKey<Bool>()

    init(workers: Int = max(2, min(ProcessInfo.processInfo.activeProcessorCount - 1, 4)), maxWaiting: Int = 256) {
        queues = (0..<max(workers, 1)).map { index in
            let queue = DispatchQueue(label: "haapi.password-hashing.\(index)", qos: .userInitiated)
            queue.setSpecific(key: Self.poolKey, value: true)
            return queue
        }
        self.maxWaiting = maxWaiting
    }

    /// Whether the caller runs on one of the pools' threads (for tests: the work must not run on a request thread).
    static var isOnPoolThread: Bool { DispatchQueue.getSpecific(key: poolKey) == true }

    /// Jobs run to completion so far: a password check is one job whatever the account.
    var completedJobs: Int { state.get().completed }

    /// Runs `work` on one of the pool's threads and returns its result.
    func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async throws(Failure) -> Result {
        let queue: DispatchQueue? = state.withLock { state in
            guard state.pending < maxWaiting + queues.count else { return nil }
            state.pending += 1
            state.next = (state.next + 1) % queues.count
            return queues[state.next]
        }
        guard let queue else { throw .busy }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
            queue.async { continuation.resume(returning: work()) }
        }
        state.withLock {
            $0.pending -= 1
            $0.completed += 1
        }
        return result
    }
}
