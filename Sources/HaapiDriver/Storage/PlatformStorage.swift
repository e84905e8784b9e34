import Foundation

/// The SDK's storage when the app names none: what must survive a relaunch (the DPoP key its tokens are
/// bound to, the dynamic client) is kept where the platform keeps an app's private data.
///
/// - Apple platforms: `KeychainStorage` under the service `io.swift-haapi.<purpose>`, readable after the
///   first unlock and never migrated to another device (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`).
/// - Elsewhere: `FileStorage` in `<application support>/swift-haapi/<purpose>`, that is
///   `$XDG_DATA_HOME/swift-haapi/<purpose>` or `~/.local/share/swift-haapi/<purpose>` on Linux: a 0700
///   folder of sealed 0600 files.
///
/// The folder is opened (and created) on first use, not when the storage is made, so a configuration costs
/// nothing until a manager needs its key; a folder that cannot be opened makes that use fail with the
/// reason, rather than quietly keeping the value in memory.
public final class PlatformStorage: Storage, Sendable {
    /// What is kept (`dpop-keys`, `dcr-clients`): the Keychain service's suffix or the folder's name.
    public let purpose: String
    /// The storage once opened; a failure is not kept, so a folder fixed later is picked up.
    private let opened = LockedValue<(any Storage)?>(nil)

    /// The platform's storage for `purpose`, opened on first use.
    public init(purpose: String) {
        self.purpose = purpose
    }

    /// Opens the platform's storage for `purpose` now.
    public static func open(purpose: String) throws(StorageError) -> any Storage {
        #if canImport(Security) && canImport(Darwin)
        return KeychainStorage(service: "io.swift-haapi." + purpose, accessibility: .afterFirstUnlock)
        #else
        let base: URL
        do {
            base = try FileManager.default.url(
                for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true)
        } catch {
            throw .unavailable("no application-support folder: \(error)")
        }
        return try FileStorage(directory: base.appendingPathComponent("swift-haapi/" + purpose, isDirectory: true))
        #endif
    }

    private func storage() throws(StorageError) -> any Storage {
        try opened.withLock { (current: inout (any Storage)?) throws(StorageError) -> any Storage in
            if let current { return current }
            let storage = try Self.open(purpose: purpose)
            current = storage
            return storage
        }
    }

    public func read(key: String) throws(StorageError) -> Data? {
        try storage().read(key: key)
    }

    public func write(_ data: Data, key: String) throws(StorageError) {
        try storage().write(data, key: key)
    }

    public func delete(key: String) throws(StorageError) {
        try storage().delete(key: key)
    }
}
