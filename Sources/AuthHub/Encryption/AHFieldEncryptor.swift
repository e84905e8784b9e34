import Crypto
import Foundation
import _CryptoExtras

/// The client side of field encryption: RSA-OAEP-SHA256 to the tenant key, optionally bound to a nonce
/// exchange, or AES-256-GCM under the exchange's session key.
public struct AHFieldEncryptor: Sendable {
    /// The tenant key as DER (SubjectPublicKeyInfo); swift-crypto's RSA key type is not Sendable.
    let tenantKeyDER: Data
    let keySizeInBits: Int

    /// From the tenant's public key in PEM (SubjectPublicKeyInfo or PKCS#1).
    public init(tenantKeyPEM: String) throws(AHEncryptionError) {
        let key: _RSA.Encryption.PublicKey
        do { key = try _RSA.Encryption.PublicKey(pemRepresentation: tenantKeyPEM) } catch {
            throw .invalidKey("\(error)")
        }
        guard key.keySizeInBits >= 2048 else { throw .invalidKey("RSA keys shorter than 2048 bits are refused") }
        tenantKeyDER = key.derRepresentation
        keySizeInBits = key.keySizeInBits
    }

    var maxPlaintext: Int { keySizeInBits / 8 - 2 * 32 - 2 }

    func seal(_ data: Data) throws(AHEncryptionError) -> Data {
        guard data.count <= maxPlaintext else { throw .plaintextTooLong(limit: maxPlaintext) }
        do {
            return try _RSA.Encryption.PublicKey(derRepresentation: tenantKeyDER).encrypt(
                data, padding: .PKCS1_OAEP_SHA256)
        } catch {
            throw .invalidKey("\(error)")
        }
    }

    /// RSA-OAEP-SHA256 to the tenant key, not bound to any exchange.
    public func encryptDataWithPublicKey(plainText: String) throws(AHEncryptionError) -> String {
        try seal(Data(plainText.utf8)).base64EncodedString()
    }

    /// Step 1 of the exchange: a fresh client nonce and what to post to the nonce generator.
    public func startNonceExchange() throws(AHEncryptionError) -> (clientNonce: Data, request: String) {
        let clientNonce = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        return (clientNonce, try seal(clientNonce).base64EncodedString())
    }

    /// Step 2: opens the server's answer (`id`, `serverNonce`).
    public func finishNonceExchange(
        clientNonce: Data, nonceId: String, sealedServerNonce: String
    ) throws(AHEncryptionError) -> AHNonceExchange {
        guard let sealed = Data(base64Encoded: sealedServerNonce) else { throw .malformed("serverNonce is not base64") }
        let serverNonce: Data
        do {
            serverNonce = try AES.GCM.open(
                AES.GCM.SealedBox(combined: sealed), using: AHNonceExchange.serverNonceKey(clientNonce: clientNonce),
                authenticating: Data(nonceId.utf8))
        } catch {
            throw .tampered
        }
        guard serverNonce.count == 32 else { throw .malformed("serverNonce must be 32 bytes") }
        return AHNonceExchange(nonceId: nonceId, clientNonce: clientNonce, serverNonce: serverNonce)
    }

    /// Public-key encryption bound to the exchange's server nonce: `v1.<base64>`.
    public func encryptData(plainText: String, exchange: AHNonceExchange) throws(AHEncryptionError) -> String {
        "v1." + (try seal(exchange.serverNonce + Data(plainText.utf8))).base64EncodedString()
    }

    /// AES-256-GCM under the exchange's session key: `v1s.<base64>`.
    public func encryptDataWithSymmetricKey(
        plainText: String, exchange: AHNonceExchange
    ) throws(AHEncryptionError) -> String {
        do {
            let box = try AES.GCM.seal(
                Data(plainText.utf8), using: exchange.sessionKey, authenticating: Data(exchange.nonceId.utf8))
            guard let combined = box.combined else { throw AHEncryptionError.malformed("no combined representation") }
            return "v1s." + combined.base64EncodedString()
        } catch let error as AHEncryptionError {
            throw error
        } catch {
            throw .malformed("\(error)")
        }
    }
}
