#if canImport(DeviceCheck) && os(iOS)
import Crypto
import DeviceCheck
import Foundation

/// Apple App Attest. App Attest keys are managed by DeviceCheck and cannot sign DPoP proofs, so the
/// attestation binds the DPoP key instead: the client data hash covers the challenge and the DPoP key's
/// thumbprint. The response is base64url JSON `{"keyId", "attestation", "jkt"}`; the server verifies the
/// attestation object against Apple's root and recomputes the hash.
public struct AppAttestAttester: Attester {
    public init() {}

    public var isSupported: Bool { DCAppAttestService.shared.isSupported }

    public func attest(challenge: String, clientId: String, key: any SigningKey) async throws -> String {
        let service = DCAppAttestService.shared
        guard service.isSupported else { throw HaapiError.attestationNotSupported }
        let keyId: String
        do { keyId = try await service.generateKey() } catch { throw HaapiError.attestationKeyGenFailure(cause: error) }
        let clientData = Data((challenge + "." + clientId + "." + key.thumbprint).utf8)
        let attestation: Data
        do {
            attestation = try await service.attestKey(keyId, clientDataHash: Data(SHA256.hash(data: clientData)))
        } catch {
            throw HaapiError.attestationFailure(cause: error)
        }
        let response: JSONObject = [
            "keyId": .string(keyId), "attestation": .string(Base64URL.encode(attestation)), "jkt": .string(key.thumbprint),
        ]
        return Base64URL.encode(Data(JSONValue.object(response).serialized().utf8))
    }
}
#endif
