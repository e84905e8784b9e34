import Foundation

/// A value shared across tasks behind a lock: the package's one audited lock wrapper, for state that synchronous
/// APIs (the seeds' setters, completion-block calls) read and write, and for state too small or too hot to
/// deserve an actor hop. `Synchronization.Mutex` would do, but it needs iOS 18 and our floor is iOS 15.
///
/// Like `Mutex`, it may hold a value that is not `Sendable` (a table with a raw buffer): the value comes in
/// `sending`, so nobody else keeps a reference to it, and the only way to it is `withLock`, whose closure gets
/// it `inout sending` and must hand out only what it may send. `get` and `set` copy the value out and in, so
/// they exist only for `Sendable` values.
///
/// Unchecked because the compiler cannot see the lock: every access to `value` below holds `lock`, and no
/// reference to `value` escapes the closure of `withLock`.
package final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: sending Value) {
        self.value = value
    }

    /// Reads and changes the value under the lock; `body` must not suspend, and blocks only for short,
    /// bounded work (a file write at most).
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension LockedValue where Value: Sendable {
    package func get() -> Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    package func set(_ newValue: Value) {
        lock.lock()
        defer { lock.unlock() }
        value = newValue
    }
}
