// Stand-in declarations of CryptoKit's Secure Enclave keys, as Apple documents them, for
// scripts/apple-shadow.sh. Not an SDK: only the names and types SecureEnclaveSigningKey uses. The rest of
// CryptoKit is swift-crypto here (the same API); these keys are not Sendable, as in Xcode 16.0's SDK.
import Crypto
import Foundation

enum SecureEnclave {
    static var isAvailable: Bool { false }

    enum P256 {
        enum Signing {
            struct PrivateKey {
                init(compactRepresentable: Bool = true) throws { throw CryptoKitError.incorrectParameterSize }
                init(dataRepresentation: Data) throws { throw CryptoKitError.incorrectParameterSize }
                var dataRepresentation: Data { Data() }
                var publicKey: Crypto.P256.Signing.PublicKey { fatalError() }
                func signature<D: DataProtocol>(for data: D) throws -> Crypto.P256.Signing.ECDSASignature {
                    throw CryptoKitError.incorrectParameterSize
                }
            }
        }
    }
}

// Not Sendable, as Xcode 16.0's SDK declares it (an internal struct here would be Sendable implicitly).
@available(*, unavailable)
extension SecureEnclave.P256.Signing.PrivateKey: Sendable {}
