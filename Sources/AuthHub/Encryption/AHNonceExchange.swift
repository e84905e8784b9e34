import Crypto
import Foundation

/// The shared values of one nonce exchange (docs/AUTHHUB-ENCRYPTION.md).
public struct AHNonceExchange: Sendable {
    /// The hub's id of the exchange, sent in `authContext` as `nonceId`.
    public let nonceId: String
    @_spi(Tooling) public let clientNonce: Data
    @_spi(Tooling) public let serverNonce: Data

    @_spi(Tooling) public init(nonceId: String, clientNonce: Data, serverNonce: Data) {
        self.nonceId = nonceId
        self.clientNonce = clientNonce
        self.serverNonce = serverNonce
    }

    static let serverNonceInfo = Data("swift-haapi authhub v1 server-nonce".utf8)
    static let sessionInfo = Data("swift-haapi authhub v1 session".utf8)

    /// The key that seals the server nonce for the client: only the holder of `clientNonce` can open it.
    @_spi(Tooling) public static func serverNonceKey(clientNonce: Data) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: clientNonce), salt: Data(), info: serverNonceInfo, outputByteCount: 32)
    }

    /// The session key for `encryptDataWithSymmetricKey`.
    @_spi(Tooling) public var sessionKey: SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: clientNonce + serverNonce), salt: Data(nonceId.utf8),
            info: Self.sessionInfo,
            outputByteCount: 32)
    }
}
