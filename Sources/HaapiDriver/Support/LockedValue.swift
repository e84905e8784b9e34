import Foundation

/// A value shared across tasks behind a lock: the package's one audited lock wrapper, for state that synchronous
/// APIs (the seeds' setters, completion-block calls) read and write, and for counters too small to deserve an
/// actor hop. `Synchronization.Mutex` would do, but it needs iOS 18 and our floor is iOS 15.
///
/// Unchecked because the compiler cannot see the lock: every access to `value` below holds `lock`, and no
/// reference to `value` escapes the closure of `withLock`.
@_spi(Tooling) public final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    @_spi(Tooling) public init(_ value: Value) {
        self.value = value
    }

    @_spi(Tooling) public func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    @_spi(Tooling) public func set(_ newValue: Value) {
        lock.lock()
        defer { lock.unlock() }
        value = newValue
    }

    /// Reads and changes the value under the lock; `body` must not suspend, and blocks only for short,
    /// bounded work (a file write at most).
    @_spi(Tooling) public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
