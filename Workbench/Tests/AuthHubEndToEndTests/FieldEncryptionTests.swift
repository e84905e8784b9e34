@_spi(Tooling) import AuthHub
import Foundation
import Testing
import _CryptoExtras

@testable import HaapiServer

/// The field encryption of docs/AUTHHUB-ENCRYPTION.md: round trips, tampering, replay, expiry, wrong keys.
@Suite("AuthHub field encryption")
struct FieldEncryptionTests {
    /// One tenant key for the suite (RSA key generation is slow), kept as DER because the key type is not Sendable.
    static let tenantKeyDER = try? _RSA.Encryption.PrivateKey(keySize: .bits2048).derRepresentation

    static func pair(lifetime: TimeInterval = 300) throws -> (AHFieldEncryptor, AHFieldDecryptor) {
        let key = try _RSA.Encryption.PrivateKey(derRepresentation: try #require(tenantKeyDER))
        let server = try AHFieldDecryptor(tenantKeyDER: key.derRepresentation, exchangeLifetime: lifetime)
        return (try AHFieldEncryptor(tenantKeyPEM: server.publicKeyPEM), server)
    }

    static func exchange(
        _ client: AHFieldEncryptor, _ server: AHFieldDecryptor, now: Date = Date()
    ) async throws -> AHNonceExchange {
        let (clientNonce, request) = try client.startNonceExchange()
        let answer = try await server.answerNonceRequest(request, now: now)
        return try client.finishNonceExchange(
            clientNonce: clientNonce, nonceId: answer.nonceId, sealedServerNonce: answer.serverNonce)
    }

    @Test("the three kinds round-trip; public-key fields are 256-byte RSA-2048 ciphertexts in standard base64")
    func roundTrips() async throws {
        let (client, server) = try Self.pair()
        let plain = try client.encryptDataWithPublicKey(plainText: "Password1 ✓")
        #expect(Data(base64Encoded: plain)?.count == 256)
        #expect(try server.decrypt(plain, exchange: nil) == "Password1 ✓")

        let exchange = try await Self.exchange(client, server)
        let bound = try client.encryptData(plainText: "Password1", exchange: exchange)
        let symmetric = try client.encryptDataWithSymmetricKey(
            plainText: String(repeating: "device signature ", count: 100), exchange: exchange)
        let consumed = try await server.consume(nonceId: exchange.nonceId, now: Date())
        #expect(try server.decrypt(bound, exchange: consumed) == "Password1")
        #expect(try server.decrypt(symmetric, exchange: consumed) == String(repeating: "device signature ", count: 100))
    }

    @Test("tampering with the ciphertext, the tag or the exchange is detected")
    func tampering() async throws {
        let (client, server) = try Self.pair()
        let exchange = try await Self.exchange(client, server)
        let other = try await Self.exchange(client, server)
        let consumed = try await server.consume(nonceId: exchange.nonceId, now: Date())
        let otherConsumed = try await server.consume(nonceId: other.nonceId, now: Date())

        let symmetric = try client.encryptDataWithSymmetricKey(plainText: "secret", exchange: exchange)
        var bytes = try #require(Data(base64Encoded: String(symmetric.dropFirst(4))))
        bytes[bytes.count - 1] ^= 0x01  // the tag
        #expect(throws: AHEncryptionError.tampered) {
            try server.decrypt("v1s." + bytes.base64EncodedString(), exchange: consumed)
        }
        bytes[bytes.count - 1] ^= 0x01
        bytes[14] ^= 0x80  // the body
        #expect(throws: AHEncryptionError.tampered) {
            try server.decrypt("v1s." + bytes.base64EncodedString(), exchange: consumed)
        }
        #expect(throws: AHEncryptionError.tampered) { try server.decrypt(symmetric, exchange: otherConsumed) }

        let bound = try client.encryptData(plainText: "secret", exchange: exchange)
        #expect(throws: AHEncryptionError.tampered) { try server.decrypt(bound, exchange: otherConsumed) }
        var rsa = try #require(Data(base64Encoded: String(bound.dropFirst(3))))
        rsa[100] ^= 0x01
        #expect(throws: AHEncryptionError.tampered) {
            try server.decrypt("v1." + rsa.base64EncodedString(), exchange: consumed)
        }
        #expect(throws: AHEncryptionError.noNonceExchange) { try server.decrypt(bound, exchange: nil) }
        #expect(throws: AHEncryptionError.self) { try server.decrypt("not base64 at all!", exchange: nil) }
    }

    @Test("an exchange serves one request: a replay, an unknown id and an expired exchange are refused")
    func singleUse() async throws {
        let (client, server) = try Self.pair(lifetime: 60)
        let exchange = try await Self.exchange(client, server)
        _ = try await server.consume(nonceId: exchange.nonceId, now: Date())
        await #expect(throws: AHEncryptionError.unknownOrUsedNonce) {
            try await server.consume(nonceId: exchange.nonceId, now: Date())
        }
        await #expect(throws: AHEncryptionError.unknownOrUsedNonce) {
            try await server.consume(nonceId: "made-up", now: Date())
        }
        let late = try await Self.exchange(client, server)
        await #expect(throws: AHEncryptionError.unknownOrUsedNonce) {
            try await server.consume(nonceId: late.nonceId, now: Date().addingTimeInterval(61))
        }
    }

    @Test(
        "another tenant's key, a sealed server nonce for another client nonce, short keys and long plaintexts are refused"
    )
    func wrongKeys() async throws {
        let (client, server) = try Self.pair()
        let stranger = try AHFieldEncryptor(
            tenantKeyPEM: try _RSA.Encryption.PrivateKey(keySize: .bits2048).publicKey.pemRepresentation)
        #expect(throws: AHEncryptionError.tampered) {
            try server.decrypt(try stranger.encryptDataWithPublicKey(plainText: "x"), exchange: nil)
        }

        let (_, request) = try client.startNonceExchange()
        let answer = try await server.answerNonceRequest(request, now: Date())
        let (otherNonce, _) = try client.startNonceExchange()
        #expect(throws: AHEncryptionError.tampered) {
            try client.finishNonceExchange(
                clientNonce: otherNonce, nonceId: answer.nonceId, sealedServerNonce: answer.serverNonce)
        }
        #expect(throws: AHEncryptionError.self) {
            try AHFieldEncryptor(tenantKeyPEM: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----")
        }
        #expect(throws: AHEncryptionError.plaintextTooLong(limit: 190)) {
            try client.encryptDataWithPublicKey(plainText: String(repeating: "a", count: 191))
        }
    }
}
