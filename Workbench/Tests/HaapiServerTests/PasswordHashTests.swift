import Foundation
import HaapiRawClient
import Testing

@testable import HaapiServer

@Suite("Password hashing")
struct PasswordHashTests {
    @Test(
        "PBKDF2-SHA256 with 600,000 iterations: verifies the right password, refuses a wrong one and malformed hashes")
    func hashAndVerify() throws {
        let hasher = PasswordHasher(iterations: 600_000)
        let start = Date()
        let hash = try hasher.hash("Password1")
        let elapsed = Date().timeIntervalSince(start)
        print("PBKDF2 600k iterations took \(elapsed) s")
        #expect(hash.hasPrefix("pbkdf2-sha256$600000$"))
        #expect(hasher.verify("Password1", against: hash))
        #expect(!hasher.verify("Password2", against: hash))
        #expect(!hasher.verify("Password1", against: "pbkdf2-sha256$600000$bad"))
        #expect(!hasher.verify("Password1", against: "plain"))
        #expect(try hasher.hash("Password1") != hash, "salts must differ")
    }
}
