import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
import _CryptoExtras

/// PBKDF2-HMAC-SHA256 password hashes in the form `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64url).
///
/// The iteration count travels with the hash, so raising it later does not break stored users.
struct PasswordHasher: Sendable {
    let iterations: Int

    /// The stored hash of an account that signs in with passkeys only: no password verifies against it.
    static let noPassword = "!passkey-only"

    /// A hash that no password matches, with this hasher's cost: checking an unknown user or a passkey-only
    /// account takes as long as checking a real password.
    func unmatchableHash() -> String {
        "pbkdf2-sha256$\(iterations)$\(Base64URL.encode(SecureRandom.bytes(16)))$\(Base64URL.encode(SecureRandom.bytes(32)))"
    }

    func hash(_ password: String) throws -> String {
        let salt = SecureRandom.bytes(16)
        let derived = try derive(password, salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(Base64URL.encode(salt))$\(Base64URL.encode(derived))"
    }

    /// The iteration count of a well-formed stored hash (salt of 16 bytes or more, 32-byte key); nil otherwise.
    static func iterations(of stored: String) -> Int? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds >= 1,
            let salt = Base64URL.decode(parts[2]), salt.count >= 16, Base64URL.decode(parts[3])?.count == 32
        else { return nil }
        return rounds
    }

    /// Constant-time comparison of the derived key; malformed stored hashes never verify.
    func verify(_ password: String, against stored: String) -> Bool {
        if stored == Self.noPassword {
            _ = verify(password, against: unmatchableHash())  // the same cost as a real check
            return false
        }
        let parts = stored.split(separator: "$")
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds >= 1,
            let salt = Base64URL.decode(parts[2]), let expected = Base64URL.decode(parts[3]),
            let derived = try? derive(password, salt: salt, iterations: rounds)
        else { return false }
        return ConstantTime.equals(derived, expected)
    }

    private func derive(_ password: String, salt: [UInt8], iterations: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256, outputByteCount: 32,
            unsafeUncheckedRounds: iterations)
        return key.withUnsafeBytes { Array($0) }
    }
}

enum ConstantTime {
    /// Compares without stopping at the first difference; lengths are not secret.
    static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    static func equals(_ lhs: String, _ rhs: String) -> Bool {
        equals(Array(lhs.utf8), Array(rhs.utf8))
    }
}

/// Tokens and codes are stored as SHA-256 hashes: a copy of the database does not hand out live tokens.
enum TokenHash {
    static func of(_ token: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(token.utf8)))
    }
}
