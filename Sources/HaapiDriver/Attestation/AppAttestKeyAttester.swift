import Crypto
import Foundation

/// What App Attest does for the attester: DeviceCheck's `DCAppAttestService` on iOS, a fake in tests.
public protocol AppAttestKeyService: Sendable {
    /// Whether this device can attest (App Attest needs iOS 14 and a device that supports it).
    var isSupported: Bool { get }
    /// A new attestation key; returns its id.
    func generateKey() async throws -> String
    /// The attestation object for key `keyID` over `clientDataHash`.
    func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data
    /// Whether `error` says the key can no longer be used (`DCError.invalidKey`), so a new one is needed.
    func isInvalidKeyError(_ error: any Error) -> Bool
}

/// App Attest with the key id kept in `storage` and reused: a key is generated once per app install
/// (and again only when the service says the stored one is invalid), not on every attestation.
///
/// App Attest keys cannot sign DPoP proofs, so the attestation binds the DPoP key instead: the client
/// data hash covers the challenge, the client id and the DPoP key's thumbprint. The response is
/// base64url JSON `{"keyId", "attestation", "jkt"}`; a server verifies the attestation object against
/// Apple's root and recomputes the hash. `AppAttestAttester` is this with DeviceCheck on iOS.
public struct AppAttestKeyAttester<Service: AppAttestKeyService>: Attester {
    /// The App Attest service (DeviceCheck, or a fake in tests).
    public let service: Service
    /// Where the attestation key id is kept between runs.
    public let storage: any Storage
    /// The storage key of the attestation key id.
    public let keyIDStorageKey: String

    /// An attester that keeps its key id in `storage` under `keyIDStorageKey`.
    public init(service: Service, storage: any Storage, keyIDStorageKey: String = "app-attest.key-id") {
        self.service = service
        self.storage = storage
        self.keyIDStorageKey = keyIDStorageKey
    }

    public var isSupported: Bool { service.isSupported }

    public func attest(challenge: String, clientId: String, key: any SigningKey) async throws -> String {
        guard service.isSupported else { throw HaapiError.attestationNotSupported }
        let clientDataHash = Data(SHA256.hash(data: Data((challenge + "." + clientId + "." + key.thumbprint).utf8)))
        let stored = (try? storage.read(key: keyIDStorageKey)).flatMap {
            $0.flatMap { String(data: $0, encoding: .utf8) }
        }
        var keyID: String
        if let stored { keyID = stored } else { keyID = try await newKey() }
        let attestation: Data
        do {
            attestation = try await service.attestKey(keyID, clientDataHash: clientDataHash)
        } catch  where stored != nil && service.isInvalidKeyError(error) {
            // The stored key was invalidated (a restore to another device, a reinstall): one new key, once.
            try? storage.delete(key: keyIDStorageKey)
            keyID = try await newKey()
            do { attestation = try await service.attestKey(keyID, clientDataHash: clientDataHash) } catch {
                throw HaapiError.attestationFailure(cause: error)
            }
        } catch {
            throw HaapiError.attestationFailure(cause: error)
        }
        let response: JSONObject = [
            "keyId": .string(keyID), "attestation": .string(Base64URL.encode(attestation)),
            "jkt": .string(key.thumbprint),
        ]
        return Base64URL.encode(Data(JSONValue.object(response).serialized().utf8))
    }

    private func newKey() async throws -> String {
        let keyID: String
        do { keyID = try await service.generateKey() } catch { throw HaapiError.attestationKeyGenFailure(cause: error) }
        do { try storage.write(Data(keyID.utf8), key: keyIDStorageKey) } catch {
            throw HaapiError.attestationKeyGenFailure(cause: error)
        }
        return keyID
    }
}
