import Crypto
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Values in files, each sealed with AES-256-GCM under a key kept in its own file.
///
/// - The directory is created with mode 0700, every file with mode 0600, in one call each (no window
///   in which another user could read them). An existing directory (or one another process created first)
///   must be this user's and writable by no one else; a symbolic link in its place must be this user's and
///   lead to a private folder of this user's, and the sealing key file this user's own regular file with mode 0600, opened without
///   following a symbolic link: otherwise another user could swap in a key of their choosing.
/// - A write goes to a temporary file that is synced and then renamed over the old one, so a process
///   killed at any point leaves the old value or the new one, never half of either; the sealing key is
///   created the same way. Temporaries a killed process left behind are removed when they are old.
/// - The value's key name is the GCM associated data: a file copied or renamed onto another key does
///   not open.
/// - File names are SHA-256 of the key name, so key names never appear on disk.
///
/// The sealing key file is what protects the values at rest; keep it (and backups) as private as the
/// data. On Apple platforms prefer the Keychain.
public final class FileStorage: Storage, Sendable {
    /// The directory the sealed files and the sealing key are in.
    public let directory: URL
    /// Boxed: Xcode 16.0–16.2's CryptoKit does not declare `SymmetricKey` Sendable (`CryptoKeyBox`).
    private let sealingKey: CryptoKeyBox<SymmetricKey>
    /// Held for each file operation, so a read never meets a half-replaced directory entry from this process.
    private let fileLock = LockedValue(())

    static let keyFileName = "storage.key"

    /// Opens the storage in `directory`, creating it and its sealing key when missing.
    public init(directory: URL) throws(StorageError) {
        self.directory = directory
        try Self.createDirectory(directory)
        sealingKey = CryptoKeyBox(try Self.loadOrCreateKey(in: directory))
        Self.removeStaleTemporaryFiles(in: directory)
    }

    public func read(key: String) throws(StorageError) -> Data? {
        let path = try path(for: key)
        return try fileLock.withLock { _ throws(StorageError) -> Data? in
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            let sealed = try Self.readPrivateFile(path)
            do {
                return try AES.GCM.open(
                    AES.GCM.SealedBox(combined: sealed), using: sealingKey.value, authenticating: Data(key.utf8))
            } catch {
                throw .corrupted(key: key)
            }
        }
    }

    public func write(_ data: Data, key: String) throws(StorageError) {
        let path = try path(for: key)
        let sealed: Data
        do {
            guard
                let combined = try AES.GCM.seal(data, using: sealingKey.value, authenticating: Data(key.utf8)).combined
            else {
                throw StorageError.unavailable("AES-GCM produced no output")
            }
            sealed = combined
        } catch {
            throw .unavailable("sealing failed: \(error)")
        }
        try fileLock.withLock { _ throws(StorageError) in
            let temporary = path + ".tmp-" + UUID().uuidString
            try Self.createPrivateFile(temporary, contents: sealed)
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw .unavailable("cannot replace \(path): \(reason)")
            }
            Self.syncDirectory(directory)
        }
    }

    public func delete(key: String) throws(StorageError) {
        let path = try path(for: key)
        try fileLock.withLock { _ throws(StorageError) in
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .unavailable("cannot delete \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    private func path(for key: String) throws(StorageError) -> String {
        guard !key.isEmpty else { throw .invalidKey("empty") }
        let name = SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent(name + ".sealed").path
    }

    private static func createDirectory(_ directory: URL) throws(StorageError) {
        var entry = stat()
        if lstat(directory.path, &entry) == 0 {
            try checkDirectory(directory.path)
            return
        }
        let parent = directory.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw .unavailable("cannot create \(parent.path): \(error.localizedDescription)")
        }
        guard mkdir(directory.path, 0o700) == 0 else {
            // Another process (or another user) made it first: it gets the same checks as one found.
            guard errno == EEXIST else {
                throw .unavailable("cannot create \(directory.path): \(String(cString: strerror(errno)))")
            }
            try checkDirectory(directory.path)
            return
        }
    }

    private static func loadOrCreateKey(in directory: URL) throws(StorageError) -> SymmetricKey {
        let path = directory.appendingPathComponent(keyFileName).path
        if !FileManager.default.fileExists(atPath: path) {
            // Written in full to a private temporary file first, then linked into place: link(2) is atomic and
            // never replaces, so a process killed at any moment leaves either no key or a whole one, and of two
            // processes creating it at once both end up using the one that was linked first.
            let temporary = path + ".tmp-" + UUID().uuidString
            try createPrivateFile(temporary, contents: Data(SecureRandom.bytes(32)))
            let linked = link(temporary, path) == 0 || errno == EEXIST
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            guard linked else { throw .unavailable("cannot create \(path): \(reason)") }
            syncDirectory(directory)
        }
        let bytes = try readPrivateFile(path)
        guard bytes.count == 32 else { throw .unavailable("\(path) must hold 32 bytes, found \(bytes.count)") }
        return SymmetricKey(data: bytes)
    }

    /// Refuses a directory another user owns or may write to: they could replace the key or the values.
    /// The path itself is looked at first (`lstat`): a symbolic link is followed only when it is this user's
    /// and leads to a private folder of this user's (mode 0700 or stricter), since a link planted in a shared
    /// folder by another user would otherwise send the values wherever that user chose.
    private static func checkDirectory(_ path: String) throws(StorageError) {
        var entry = stat()
        guard lstat(path, &entry) == 0 else {
            throw .unavailable("cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        let isLink = entry.st_mode & S_IFMT == S_IFLNK
        if isLink, entry.st_uid != geteuid() {
            throw .unavailable(
                "\(path) is a symbolic link of another user (uid \(entry.st_uid)); use a folder of your own")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .unavailable("cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .unavailable("\(path) is not a directory") }
        guard info.st_uid == geteuid() else {
            throw .unavailable("\(path) belongs to another user (uid \(info.st_uid)); use a folder of your own")
        }
        let mode = String(info.st_mode & 0o777, radix: 8)
        if isLink, info.st_mode & 0o077 != 0 {
            throw .unavailable(
                "\(path) is a symbolic link to a folder other users can open (mode \(mode)); run chmod 700 on the folder"
            )
        }
        guard info.st_mode & 0o022 == 0 else {
            throw .unavailable("\(path) is writable by other users (mode \(mode)); run chmod 700 on it")
        }
    }

    /// Reads a file this storage made: opened without following a symbolic link, and refused unless it is a
    /// regular file of this user's that no one else can read or write.
    private static func readPrivateFile(_ path: String) throws(StorageError) -> Data {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))
            throw .unavailable("cannot open \(path): \(reason)")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .unavailable("\(path) is not a regular file")
        }
        guard info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            throw .unavailable(
                "\(path) must be yours with mode 0600 (it is uid \(info.st_uid), mode \(String(info.st_mode & 0o777, radix: 8)))"
            )
        }
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw .unavailable("cannot read \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { return contents }
            contents.append(contentsOf: buffer[0..<count])
            guard contents.count <= 16 * 1024 * 1024 else { throw .unavailable("\(path) is too large") }
        }
    }

    /// Temporary files left by a process that was killed between writing and renaming. Only old ones go: a
    /// young one may belong to another process that is about to rename it.
    private static func removeStaleTemporaryFiles(in directory: URL, olderThan age: TimeInterval = 600) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        let cutoff = Date().addingTimeInterval(-age)
        for name in names where name.contains(".tmp-") {
            let path = directory.appendingPathComponent(name).path
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                modified < cutoff
            else { continue }
            unlink(path)
        }
    }

    /// Makes a rename or link in `directory` durable: without it a power loss (not a kill) may undo it.
    private static func syncDirectory(_ directory: URL) {
        let descriptor = open(directory.path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Creates the file with mode 0600 in the same call that opens it, then writes and syncs it.
    private static func createPrivateFile(_ path: String, contents: Data) throws(StorageError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw .unavailable("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = contents.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
        guard written == contents.count, fsync(descriptor) == 0 else { throw .unavailable("cannot write \(path)") }
    }
}

/// `read(2)`, named apart from the `read(key:)` method above.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

/// `write(2)`, named apart from the `write(_:key:)` method above.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
