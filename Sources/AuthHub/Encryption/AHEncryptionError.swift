/// Why a field could not be encrypted or read.
public enum AHEncryptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A tenant key that is not a usable RSA public key, and why.
    case invalidKey(String)
    /// The tenant's public key has not been fetched (call `getFieldsToBeEncryptedInAuthFlow` or `initAuth` first).
    case noTenantKey
    /// The value is longer than RSA-OAEP-SHA256 can encrypt with the tenant key (`limit` bytes).
    case plaintextTooLong(limit: Int)
    /// No nonce exchange has been made (call the nonce generator first).
    case noNonceExchange
    /// A ciphertext or an answer that is not in the expected format, and why.
    case malformed(String)
    /// The ciphertext does not open: changed, sealed with another key, or bound to another exchange.
    case tampered
    /// The exchange is unknown, expired or already used.
    case unknownOrUsedNonce

    public var description: String {
        switch self {
        case .invalidKey(let detail): "invalid key: \(detail)"
        case .noTenantKey:
            "the tenant's public key has not been fetched (call getFieldsToBeEncryptedInAuthFlow or initAuth first)"
        case .plaintextTooLong(let limit): "the plaintext is longer than \(limit) bytes"
        case .noNonceExchange: "no nonce exchange has been made"
        case .malformed(let detail): "malformed encrypted field: \(detail)"
        case .tampered: "the encrypted field does not open (changed, or sealed for another key or exchange)"
        case .unknownOrUsedNonce: "the nonce exchange is unknown, expired or already used"
        }
    }
}
