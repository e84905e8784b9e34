import Foundation
@_spi(Tooling) import HaapiDriver

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private P-256 JWK in a file, created with mode 0600 when missing.
///
/// The file is created with `O_CREAT | O_EXCL` and mode 0600 in one call, so there is no moment at
/// which another user could read it, and two processes racing to create it cannot both win.
enum KeyFile {
    enum Failure: Error, CustomStringConvertible {
        case invalid(String, String)
        case cannotCreate(String, String)

        var description: String {
            switch self {
            case .invalid(let path, let reason): "key file \(path) does not hold a private EC P-256 JWK: \(reason)"
            case .cannotCreate(let path, let reason): "cannot create key file \(path): \(reason)"
            }
        }
    }

    /// Loads the key, or creates a new one at `path` when the file does not exist.
    /// Returns the key and whether it was created.
    static func loadOrCreateP256(at path: String) throws -> (key: SoftwareP256SigningKey, created: Bool) {
        if FileManager.default.fileExists(atPath: path) {
            return (try loadP256(at: path), false)
        }
        let key = SoftwareP256SigningKey()
        do {
            try createPrivateFile(at: path, contents: Data((key.privateJWK.jsonString + "\n").utf8))
            return (key, true)
        } catch let error as Failure {
            // Another process may have created it between our check and our create; use theirs.
            if FileManager.default.fileExists(atPath: path) { return (try loadP256(at: path), false) }
            throw error
        }
    }

    static func loadP256(at path: String) throws -> SoftwareP256SigningKey {
        warnIfReadableByOthers(path)
        let jwk = try loadJWK(at: path)
        do {
            return try SoftwareP256SigningKey(jwk: jwk)
        } catch {
            throw Failure.invalid(path, "\(error)")
        }
    }

    static func loadJWK(at path: String) throws -> JWK {
        let data = try StandardStreams.read(path, what: "key file")
        do {
            return try JWK(jsonString: String(decoding: data, as: UTF8.self))
        } catch {
            throw Failure.invalid(path, "\(error)")
        }
    }

    static func createPrivateFile(at path: String, contents: Data) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw Failure.cannotCreate(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        let written = contents.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == contents.count else { throw Failure.cannotCreate(path, "short write") }
    }

    /// Like ssh: a private key that others can read deserves a warning.
    private static func warnIfReadableByOthers(_ path: String) {
        guard path != "-", let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let permissions = attributes[.posixPermissions] as? NSNumber
        else { return }
        if permissions.intValue & 0o077 != 0 {
            StandardStreams.printError(
                String(
                    format: "warning: key file %@ is accessible by others (mode %o); use chmod 600", path,
                    permissions.intValue))
        }
    }
}
