import Foundation

/// Where the SDK keeps what must survive a restart: tokens, the dynamic client, device keys.
///
/// Implementations: `FileStorage` (Linux and anywhere with a file system), `InMemoryStorage`
/// (tests, and apps that want nothing on disk); a Keychain implementation on Apple platforms.
public protocol Storage: Sendable {
    /// The stored value, or `nil` when there is none.
    func read(key: String) throws(StorageError) -> Data?
    /// Stores `data` under `key`, replacing any previous value atomically.
    func write(_ data: Data, key: String) throws(StorageError)
    /// Removes the value; removing a missing key is not an error.
    func delete(key: String) throws(StorageError)
}

/// Why a storage read, write or delete failed.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The backing store could not be read or written (permissions, disk full, …).
    case unavailable(String)
    /// A value exists but cannot be opened: it was changed, moved, or sealed with another key.
    case corrupted(key: String)
    /// A key name the storage cannot use, and why.
    case invalidKey(String)

    public var description: String {
        switch self {
        case .unavailable(let detail): "storage unavailable: \(detail)"
        case .corrupted(let key): "stored value for \"\(key)\" is corrupted or was sealed with another key"
        case .invalidKey(let detail): "invalid storage key: \(detail)"
        }
    }
}

/// Values kept in memory only.
public final class InMemoryStorage: Storage, Sendable {
    private let values = LockedValue<[String: Data]>([:])

    /// An empty storage.
    public init() {}

    public func read(key: String) throws(StorageError) -> Data? {
        values.get()[key]
    }

    public func write(_ data: Data, key: String) throws(StorageError) {
        values.withLock { $0[key] = data }
    }

    public func delete(key: String) throws(StorageError) {
        values.withLock { $0[key] = nil }
    }
}
