import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FileStorage refuses places where another user could read its key or swap in one of their own.
@Suite("File storage: ownership and modes")
struct StoragePermissionTests {
    static func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return "\(error)"
        }
    }

    static func freshDirectory(mode: mode_t) throws -> URL {
        let directory = StorageTests.directory()
        try FileManager.default.createDirectory(
            at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
        #expect(mkdir(directory.path, 0o700) == 0)
        #expect(chmod(directory.path, mode) == 0)
        return directory
    }

    @Test("a folder others may write to is refused; one they may only read is accepted")
    func writableFolder() throws {
        for mode: mode_t in [0o777, 0o770, 0o702] {
            let directory = try Self.freshDirectory(mode: mode)
            let refused = Self.message { _ = try FileStorage(directory: directory) }
            #expect(
                refused?.contains("writable by other users") == true,
                "mode \(String(mode, radix: 8)): \(refused ?? "accepted")")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("storage.key").path))
        }
        let readable = try Self.freshDirectory(mode: 0o755)
        #expect(Self.message { _ = try FileStorage(directory: readable) } == nil)
    }

    @Test("a key file that is a symbolic link, readable by others, or another user's is refused")
    func keyFile() throws {
        let directory = StorageTests.directory()
        let storage = try FileStorage(directory: directory)
        try storage.write(Data("secret".utf8), key: "k")
        let keyPath = directory.appendingPathComponent("storage.key").path

        // Readable by others.
        #expect(chmod(keyPath, 0o644) == 0)
        let loose = Self.message { _ = try FileStorage(directory: directory) }
        #expect(loose?.contains("mode 0600") == true, "\(loose ?? "accepted")")
        #expect(chmod(keyPath, 0o600) == 0)
        #expect(try FileStorage(directory: directory).read(key: "k") == Data("secret".utf8))

        // A symbolic link to a key of someone else's choosing.
        let elsewhere = directory.deletingLastPathComponent().appendingPathComponent("planted.key").path
        #expect(FileManager.default.createFile(atPath: elsewhere, contents: Data(repeating: 7, count: 32)))
        #expect(chmod(elsewhere, 0o600) == 0)
        #expect(rename(keyPath, keyPath + ".saved") == 0)
        #expect(symlink(elsewhere, keyPath) == 0)
        let linked = Self.message { _ = try FileStorage(directory: directory) }
        #expect(linked?.contains("symbolic link") == true, "\(linked ?? "accepted")")
        #expect(unlink(keyPath) == 0 && rename(keyPath + ".saved", keyPath) == 0)

        // Another user's (only root can hand a file to another user; elsewhere this part cannot run).
        if geteuid() == 0 {
            #expect(chown(keyPath, 65_534, 65_534) == 0)
            let foreign = Self.message { _ = try FileStorage(directory: directory) }
            #expect(foreign?.contains("must be yours") == true, "\(foreign ?? "accepted")")
            #expect(chown(keyPath, 0, 0) == 0)
            #expect(chown(directory.path, 65_534, 65_534) == 0)
            let foreignFolder = Self.message { _ = try FileStorage(directory: directory) }
            #expect(foreignFolder?.contains("belongs to another user") == true, "\(foreignFolder ?? "accepted")")
            #expect(chown(directory.path, 0, 0) == 0)
        }
        #expect(try FileStorage(directory: directory).read(key: "k") == Data("secret".utf8))
    }

    @Test("a symbolic link in the storage's place: followed only when it and a private target are this user's")
    func plantedLink() throws {
        let base = StorageTests.directory()
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let target = base.appendingPathComponent("target")
        let link = base.appendingPathComponent("store")
        #expect(mkdir(target.path, 0o700) == 0 && symlink(target.path, link.path) == 0)
        func written() -> Bool {
            FileManager.default.fileExists(atPath: target.appendingPathComponent("storage.key").path)
        }

        // A target other users can open: refused, nothing written through the link.
        #expect(chmod(target.path, 0o755) == 0)
        let open = Self.message { _ = try FileStorage(directory: link) }
        #expect(open?.contains("symbolic link to a folder other users can open") == true, "\(open ?? "accepted")")
        #expect(!written())

        // A link another user planted (to a folder of theirs, or to one of ours): refused, nothing written.
        // Only root can hand a file to another user; elsewhere this part cannot run.
        if geteuid() == 0 {
            #expect(chmod(target.path, 0o700) == 0)
            #expect(lchown(link.path, 65_534, 65_534) == 0)
            let planted = Self.message { _ = try FileStorage(directory: link) }
            #expect(planted?.contains("symbolic link of another user") == true, "\(planted ?? "accepted")")
            #expect(!written())
            #expect(lchown(link.path, 0, 0) == 0 && chown(target.path, 65_534, 65_534) == 0)
            let foreignTarget = Self.message { _ = try FileStorage(directory: link) }
            #expect(foreignTarget?.contains("belongs to another user") == true, "\(foreignTarget ?? "accepted")")
            #expect(!written())
            #expect(chown(target.path, 0, 0) == 0)
        }

        // A link of ours to a private folder of ours is a choice of the user's: followed.
        #expect(chmod(target.path, 0o700) == 0)
        let storage = try FileStorage(directory: link)
        try storage.write(Data("value".utf8), key: "k")
        #expect(written())
        #expect(try FileStorage(directory: link).read(key: "k") == Data("value".utf8))

        // A dangling link (its folder gone): refused, and no folder is made at its target.
        let dangling = base.appendingPathComponent("dangling")
        #expect(symlink(base.appendingPathComponent("nowhere").path, dangling.path) == 0)
        #expect(Self.message { _ = try FileStorage(directory: dangling) } != nil)
        #expect(!FileManager.default.fileExists(atPath: base.appendingPathComponent("nowhere").path))
    }
}
