import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

@Suite("Storage")
struct StorageTests {
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("haapi-storage-\(UUID().uuidString)")
            .appendingPathComponent("store")
    }

    /// The documented layout: one file per key, named by the SHA-256 of the key name.
    static func sealedFile(_ directory: URL, key: String) -> URL {
        let name = SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent(name + ".sealed")
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? NSNumber)?.intValue ?? -1
    }

    @Test("in-memory and file storage: write, read, replace, delete", arguments: ["memory", "file"])
    func roundTrip(kind: String) throws {
        let storage: any Storage = kind == "memory" ? InMemoryStorage() : try FileStorage(directory: Self.directory())
        #expect(try storage.read(key: "refresh_token") == nil)
        try storage.write(Data("first".utf8), key: "refresh_token")
        try storage.write(Data("second".utf8), key: "refresh_token")
        #expect(try storage.read(key: "refresh_token") == Data("second".utf8))
        try storage.delete(key: "refresh_token")
        #expect(try storage.read(key: "refresh_token") == nil)
        try storage.delete(key: "refresh_token")
        try storage.write(Data(), key: "empty")
        #expect(try storage.read(key: "empty") == Data())
    }

    @Test("file storage: 0700 directory, 0600 files, sealed contents, key names not on disk, survives a new instance")
    func fileLayout() throws {
        let directory = Self.directory()
        let storage = try FileStorage(directory: directory)
        try storage.write(Data("secret-refresh-token".utf8), key: "tokens.haapi-demo")
        #expect(Self.mode(directory.path) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 2 && files.contains("storage.key"))
        for file in files { #expect(Self.mode(directory.appendingPathComponent(file).path) == 0o600, "\(file)") }
        #expect(!files.contains { $0.contains("tokens") })
        let sealed = try #require(files.first { $0.hasSuffix(".sealed") })
        let bytes = try Data(contentsOf: directory.appendingPathComponent(sealed))
        #expect(bytes.range(of: Data("secret-refresh-token".utf8)) == nil)
        #expect(
            try FileStorage(directory: directory).read(key: "tokens.haapi-demo") == Data("secret-refresh-token".utf8))
    }

    @Test("a changed file, a file moved onto another key, or another sealing key is corrupted, not garbage")
    func tampering() throws {
        let directory = Self.directory()
        let storage = try FileStorage(directory: directory)
        try storage.write(Data("alpha".utf8), key: "a")
        try storage.write(Data("beta".utf8), key: "b")
        let aPath = Self.sealedFile(directory, key: "a")
        let bPath = Self.sealedFile(directory, key: "b")

        try FileManager.default.removeItem(at: bPath)
        try FileManager.default.copyItem(at: aPath, to: bPath)
        #expect(throws: StorageError.corrupted(key: "b")) { try storage.read(key: "b") }

        var flipped = try Data(contentsOf: aPath)
        flipped[flipped.count - 1] ^= 0x01
        try flipped.write(to: aPath)
        #expect(throws: StorageError.corrupted(key: "a")) { try storage.read(key: "a") }

        let other = Self.directory()
        let otherStorage = try FileStorage(directory: other)
        try otherStorage.write(Data("x".utf8), key: "a")
        try FileManager.default.removeItem(at: aPath)
        try FileManager.default.copyItem(at: Self.sealedFile(other, key: "a"), to: aPath)
        #expect(throws: StorageError.corrupted(key: "a")) { try storage.read(key: "a") }
    }

    @Test("bad key files and bad keys are clear errors")
    func errors() throws {
        let directory = Self.directory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("short".utf8).write(to: directory.appendingPathComponent("storage.key"))
        #expect(throws: StorageError.self) { try FileStorage(directory: directory) }
        let storage = try FileStorage(directory: Self.directory())
        #expect(throws: StorageError.invalidKey("empty")) { try storage.write(Data(), key: "") }
    }

    @Test("concurrent writers never leave a torn value")
    func concurrency() async throws {
        let storage = try FileStorage(directory: Self.directory())
        let values = (0..<40).map { Data(String(repeating: String($0 % 10), count: 4096).utf8) }
        await withTaskGroup(of: Void.self) { group in
            for value in values { group.addTask { try? storage.write(value, key: "shared") } }
        }
        let final = try #require(try storage.read(key: "shared"))
        #expect(values.contains(final))
    }
}
