import Crypto
import Foundation

/// What App Attest does for the attester: DeviceCheck's `DCAppAttestService` on iOS, a fake in tests.
public protocol AppAttestKeyService: Sendable {
    /// Whether this device can attest (App Attest needs iOS 14 and a device that supports it).
    var isSupported: Bool { get }
    /// A new attestation key; returns its id.
    func generateKey() async throws -> String
    /// The attestation object for key `keyID` over `clientDataHash` (once per key).
    func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data
    /// An assertion by the attested key `keyID` over `clientDataHash`.
    func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data
    /// Whether `error` says the key can no longer be used (`DCError.invalidKey`), so a new one is needed.
    func isInvalidKeyError(_ error: any Error) -> Bool
}

/// App Attest with the key kept in `storage` and reused: a key is generated and attested once per app
/// install, and every later challenge is answered with an assertion by that key, as Apple advises
/// (attestation is rate-limited; assertions are not). A new key is made only when the service says the
/// stored one is invalid or the server refused a response of it.
///
/// App Attest keys cannot sign DPoP proofs, so the response binds the DPoP key instead: the client data
/// hash is SHA-256(`challenge.client_id.jkt`), `jkt` being the DPoP key's thumbprint. The response is
/// base64url JSON `{"keyId", "attestation", "jkt"}` the first time and `{"keyId", "assertion", "jkt"}`
/// afterwards (docs/ATTESTATION.md). `AppAttestAttester` is this with DeviceCheck on iOS.
public struct AppAttestKeyAttester<Service: AppAttestKeyService>: Attester {
    /// The App Attest service (DeviceCheck, or a fake in tests).
    public let service: Service
    /// Where the attestation key id is kept between runs.
    public let storage: any Storage
    /// The storage key of the attestation key id.
    public let keyIDStorageKey: String
    /// What the last response of this attester was, so a refusal can be answered (see `serverRefused()`).
    private let lastResponse = LockedValue<ResponseKind?>(nil)

    private enum ResponseKind: Sendable { case attestation, assertion }

    /// An attester that keeps its key id in `storage` under `keyIDStorageKey`.
    public init(service: Service, storage: any Storage, keyIDStorageKey: String = "app-attest.key-id") {
        self.service = service
        self.storage = storage
        self.keyIDStorageKey = keyIDStorageKey
    }

    public var isSupported: Bool { service.isSupported }

    /// The storage key that records that the stored key was attested (its value is the key id).
    private var attestedStorageKey: String { keyIDStorageKey + ".attested" }

    public func attest(challenge: String, clientId: String, key: any SigningKey) async throws -> String {
        guard service.isSupported else { throw HaapiError.attestationNotSupported }
        let clientDataHash = Data(SHA256.hash(data: Data((challenge + "." + clientId + "." + key.thumbprint).utf8)))
        let stored = readString(keyIDStorageKey)
        if let stored, readString(attestedStorageKey) == stored {
            do {
                let assertion = try await service.generateAssertion(stored, clientDataHash: clientDataHash)
                lastResponse.set(.assertion)
                return Self.response(keyID: stored, member: "assertion", value: assertion, jkt: key.thumbprint)
            } catch  where service.isInvalidKeyError(error) {
                forgetKey()
            } catch {
                throw HaapiError.attestationFailure(cause: error)
            }
        }
        var keyID: String
        if let current = readString(keyIDStorageKey) { keyID = current } else { keyID = try await newKey() }
        let attestation: Data
        do {
            attestation = try await service.attestKey(keyID, clientDataHash: clientDataHash)
        } catch  where stored != nil && service.isInvalidKeyError(error) {
            // The stored key was invalidated (a restore to another device, a reinstall): one new key, once.
            forgetKey()
            keyID = try await newKey()
            do { attestation = try await service.attestKey(keyID, clientDataHash: clientDataHash) } catch {
                throw HaapiError.attestationFailure(cause: error)
            }
        } catch {
            throw HaapiError.attestationFailure(cause: error)
        }
        // A key is attested once: from now on it asserts (until a refusal says the server does not know it).
        try? storage.write(Data(keyID.utf8), key: attestedStorageKey)
        lastResponse.set(.attestation)
        return Self.response(keyID: keyID, member: "attestation", value: attestation, jkt: key.thumbprint)
    }

    /// The server refused the last response. Either way the key is of no further use with this server (it
    /// does not know the key, or refused its attestation, which cannot be repeated): the next challenge gets
    /// a new key and its attestation. Worth an immediate retry only after a refused assertion (the server
    /// may have lost its keys); a refused attestation would most likely be refused again.
    public func serverRefused() -> Bool {
        let refused = lastResponse.get()
        lastResponse.set(nil)
        guard refused != nil else { return false }
        forgetKey()
        return refused == .assertion
    }

    private static func response(keyID: String, member: String, value: Data, jkt: String) -> String {
        let response: JSONObject = [
            "keyId": .string(keyID), .init(stringLiteral: member): .string(Base64URL.encode(value)),
            "jkt": .string(jkt),
        ]
        return Base64URL.encode(Data(JSONValue.object(response).serialized().utf8))
    }

    private func readString(_ storageKey: String) -> String? {
        (try? storage.read(key: storageKey)).flatMap { $0.flatMap { String(data: $0, encoding: .utf8) } }
    }

    private func forgetKey() {
        try? storage.delete(key: keyIDStorageKey)
        try? storage.delete(key: attestedStorageKey)
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
