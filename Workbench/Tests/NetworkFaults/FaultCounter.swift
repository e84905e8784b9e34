import Foundation

/// Counts, by key, what a proxy's rule has seen (the third GET, the first poll), shared by the rule's thread and
/// the test.
public final class FaultCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]

    public init() {}

    /// Adds one to `key`'s count and returns it: 1 the first time.
    public func next(_ key: String = "") -> Int {
        lock.withLock {
            counts[key, default: 0] += 1
            return counts[key, default: 0]
        }
    }

    /// `key`'s count so far.
    public func count(_ key: String = "") -> Int { lock.withLock { counts[key, default: 0] } }
}
