@_spi(Tooling) import AuthHub
import Crypto
import Foundation
import _CryptoExtras

/// The hub's side of field encryption (the client's is `AHFieldEncryptor`, in AuthHub): the tenant's private key and the live nonce exchanges. Each
/// exchange serves one request (`consume`), then is gone, so a captured request cannot be replayed.
actor AHFieldDecryptor {
    /// The tenant's private key as DER (PKCS#1); swift-crypto's RSA key type is not Sendable.
    private nonisolated let tenantKeyDER: Data
    /// The tenant's public key, PEM, as the hub hands it out.
    nonisolated let publicKeyPEM: String
    private let lifetime: TimeInterval
    private var exchanges: [String: (exchange: AHNonceExchange, expiresAt: Date)] = [:]
    /// Anyone may start exchanges: at most this many are kept (the oldest goes first).
    private let capacity: Int

    /// A decryptor for the tenant key given as DER (PKCS#1 or PKCS#8); no crypto library's types in the API.
    init(
        tenantKeyDER: Data, exchangeLifetime: TimeInterval = 300, capacity: Int = 10_000
    ) throws(AHEncryptionError) {
        let key: _RSA.Encryption.PrivateKey
        do { key = try _RSA.Encryption.PrivateKey(derRepresentation: tenantKeyDER) } catch {
            throw .malformed("the tenant key is not an RSA private key")
        }
        self.capacity = max(capacity, 1)
        self.tenantKeyDER = key.derRepresentation
        publicKeyPEM = key.publicKey.pemRepresentation
        lifetime = exchangeLifetime
    }

    /// A decryptor with a new 2048-bit tenant key (the dev server makes one per process).
    static func withNewTenantKey(
        exchangeLifetime: TimeInterval = 300
    ) throws(AHEncryptionError) -> AHFieldDecryptor {
        let key: _RSA.Encryption.PrivateKey
        do { key = try _RSA.Encryption.PrivateKey(keySize: .bits2048) } catch {
            throw .malformed("no RSA key could be made: \(error)")
        }
        return try AHFieldDecryptor(tenantKeyDER: key.derRepresentation, exchangeLifetime: exchangeLifetime)
    }

    nonisolated func open(_ data: Data) throws(AHEncryptionError) -> Data {
        do {
            return try _RSA.Encryption.PrivateKey(derRepresentation: tenantKeyDER).decrypt(
                data, padding: .PKCS1_OAEP_SHA256)
        } catch {
            throw .tampered
        }
    }

    /// Answers the nonce generator: `(id, sealed serverNonce)`.
    func answerNonceRequest(
        _ encryptedClientNonce: String, now: Date
    ) throws(AHEncryptionError) -> (nonceId: String, serverNonce: String) {
        guard let sealed = Data(base64Encoded: encryptedClientNonce) else {
            throw .malformed("clientNonce is not base64")
        }
        let clientNonce = try open(sealed)
        guard clientNonce.count == 32 else { throw .malformed("clientNonce must be 32 bytes") }
        let serverNonce = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let nonceId = UUID().uuidString.lowercased()
        // Swept only when full, so the usual request costs O(1); a full store drops its oldest exchange.
        if exchanges.count >= capacity {
            exchanges = exchanges.filter { $0.value.expiresAt > now }
            if exchanges.count >= capacity,
                let oldest = exchanges.min(by: { $0.value.expiresAt < $1.value.expiresAt })?.key
            {
                exchanges[oldest] = nil
            }
        }
        exchanges[nonceId] = (
            AHNonceExchange(nonceId: nonceId, clientNonce: clientNonce, serverNonce: serverNonce),
            now.addingTimeInterval(lifetime)
        )
        do {
            let box = try AES.GCM.seal(
                serverNonce, using: AHNonceExchange.serverNonceKey(clientNonce: clientNonce),
                authenticating: Data(nonceId.utf8))
            guard let combined = box.combined else { throw AHEncryptionError.malformed("no combined representation") }
            return (nonceId, combined.base64EncodedString())
        } catch {
            throw .malformed("\(error)")
        }
    }

    /// Exchanges waiting to be used (for tests of the bound).
    var pendingExchanges: Int { exchanges.count }

    /// Takes the exchange a request names; a second call with the same id finds nothing.
    func consume(nonceId: String, now: Date) throws(AHEncryptionError) -> AHNonceExchange {
        guard let entry = exchanges.removeValue(forKey: nonceId), entry.expiresAt > now else {
            throw .unknownOrUsedNonce
        }
        return entry.exchange
    }

    /// Opens a field that `encryptDataWithPublicKey` produced.
    nonisolated func decryptPublicKeyField(_ field: String) throws(AHEncryptionError) -> String {
        guard let data = Data(base64Encoded: field) else { throw .malformed("not base64") }
        return try Self.text(try open(data))
    }

    /// Opens a field of any of the three kinds; the nonce-bound kinds need the request's consumed exchange.
    nonisolated func decrypt(_ field: String, exchange: AHNonceExchange?) throws(AHEncryptionError) -> String {
        if field.hasPrefix("v1.") {
            guard let exchange else { throw .noNonceExchange }
            guard let data = Data(base64Encoded: String(field.dropFirst(3))) else { throw .malformed("not base64") }
            let opened = try open(data)
            guard opened.count >= 32, Self.constantTimeEqual(opened.prefix(32), exchange.serverNonce) else {
                throw .tampered
            }
            return try Self.text(opened.dropFirst(32))
        }
        if field.hasPrefix("v1s.") {
            guard let exchange else { throw .noNonceExchange }
            guard let data = Data(base64Encoded: String(field.dropFirst(4))) else { throw .malformed("not base64") }
            do {
                let box = try AES.GCM.SealedBox(combined: data)
                return try Self.text(
                    try AES.GCM.open(box, using: exchange.sessionKey, authenticating: Data(exchange.nonceId.utf8)))
            } catch let error as AHEncryptionError {
                throw error
            } catch {
                throw .tampered
            }
        }
        return try decryptPublicKeyField(field)
    }

    static func text(_ data: Data) throws(AHEncryptionError) -> String {
        guard let text = String(data: data, encoding: .utf8) else { throw .malformed("the plaintext is not UTF-8") }
        return text
    }

    static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
