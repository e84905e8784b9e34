import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
import X509

/// The `appAttest` policy (docs/ATTESTATION.md): the challenge response is base64url JSON
/// `{"keyId", "attestation", "jkt"}` the first time a key is used and `{"keyId", "assertion", "jkt"}`
/// afterwards, both over the client data hash SHA-256(`challenge.client_id.jkt`), so the DPoP key `jkt`
/// names is the one the CAT binds. Verified keys and their counters are kept in the store.
struct AppAttestation: Sendable {
    let trust: AppAttestVerifier.Trust
    let store: ServerStore

    init(settings: AppAttestSettings, store: ServerStore) throws {
        trust = AppAttestVerifier.Trust(
            root: try settings.root(), appIDs: settings.appIDs, environment: settings.environment)
        self.store = store
    }

    /// A response is a few kilobytes: two certificates, a receipt and the authenticator data.
    static let maxResponseBytes = 64 * 1024

    /// A challenge response, read but not verified.
    struct Response: Sendable {
        enum Proof: Sendable {
            case attestation(Data)
            case assertion(Data)
        }
        let keyID: String
        let jkt: String
        let proof: Proof
    }

    /// Reads a challenge response; the reason when it is not one.
    static func parse(_ response: String) -> Result<Response, AppAttestFailure> {
        guard response.utf8.count <= maxResponseBytes, let json = Base64URL.decode(response),
            let object = try? JSONParser(limits: .init(maxBytes: maxResponseBytes, maxDepth: 4)).parse(Data(json))
                .objectValue,
            let keyID = object["keyId"]?.stringValue.flatMap(canonicalKeyID), let jkt = object["jkt"]?.stringValue,
            jkt.utf8.count == 43, Base64URL.decode(jkt)?.count == 32
        else {
            return .failure(
                .malformed(
                    "the challenge response must be base64url JSON with keyId (standard base64 of 32 bytes, as DCAppAttestService gives it), jkt and an attestation or assertion"
                ))
        }
        let attestation = object["attestation"]?.stringValue.flatMap { Base64URL.decode($0) }
        let assertion = object["assertion"]?.stringValue.flatMap { Base64URL.decode($0) }
        switch (attestation, assertion) {
        case (let attestation?, nil):
            return .success(Response(keyID: keyID, jkt: jkt, proof: .attestation(Data(attestation))))
        case (nil, let assertion?):
            return .success(Response(keyID: keyID, jkt: jkt, proof: .assertion(Data(assertion))))
        default:
            return .failure(
                .malformed("the challenge response needs exactly one of attestation and assertion, in base64url"))
        }
    }

    /// A key id as the device gives it: the standard, padded base64 of 32 bytes, in that one spelling, so
    /// one key cannot be stored (or its counter kept) under several names.
    static func canonicalKeyID(_ text: String) -> String? {
        guard let bytes = Data(base64Encoded: text), bytes.count == 32, bytes.base64EncodedString() == text else {
            return nil
        }
        return text
    }

    /// Verifies a challenge response for `client`: its key must be attested for one of the client's apps
    /// (`appIds`), in the environment the server is configured for.
    func verify(
        _ text: String, challenge: String, client: ClientConfiguration, now: Date
    ) async -> AttestationVerdict {
        let clientID = client.id
        let response: Response
        switch Self.parse(text) {
        case .failure(let failure): return .refused(failure.description)
        case .success(let parsed): response = parsed
        }
        let clientDataHash = Data(SHA256.hash(data: Data("\(challenge).\(clientID).\(response.jkt)".utf8)))
        switch response.proof {
        case .attestation(let object):
            return await attest(
                object, keyID: response.keyID, jkt: response.jkt, clientDataHash: clientDataHash, client: client,
                now: now)
        case .assertion(let assertion):
            return await assert(
                assertion, keyID: response.keyID, jkt: response.jkt, clientDataHash: clientDataHash, client: client)
        }
    }

    private func attest(
        _ object: Data, keyID: String, jkt: String, clientDataHash: Data, client: ClientConfiguration, now: Date
    ) async
        -> AttestationVerdict
    {
        switch await AppAttestVerifier.verifyAttestation(
            object, keyID: keyID, clientDataHash: clientDataHash, trust: trust)
        {
        case .failure(let failure):
            return .refused("App Attest attestation refused: \(failure)")
        case .success(let key):
            // Checked before the key is stored: a key of another app stays unknown here.
            guard client.appIds.contains(key.appID) else {
                return .refused(
                    "App Attest attestation refused: the key is \(key.appID)'s, not an app of client \(client.id)")
            }
            do {
                guard try await store.insertAppAttestKey(key, now: now) else {
                    return .refused("this App Attest key is already attested; send an assertion")
                }
            } catch {
                return .refused("the attested key could not be stored")
            }
            return .attested(thumbprint: jkt, data: Self.data(key, counter: 0, first: true, trust: trust))
        }
    }

    private func assert(
        _ assertion: Data, keyID: String, jkt: String, clientDataHash: Data, client: ClientConfiguration
    ) async -> AttestationVerdict {
        let stored: AppAttestKey?
        do { stored = try await store.appAttestKey(keyID) } catch { return .refused("the key store could not be read") }
        guard let key = stored else { return .refused("unknown App Attest key; attest it first") }
        guard key.environment == trust.environment else {
            return .refused(
                "App Attest assertion refused: the key was attested in the \(key.environment?.rawValue ?? "unrecorded") environment, and this server accepts \(trust.environment.rawValue) keys; the app must make a new key"
            )
        }
        guard client.appIds.contains(key.appID) else {
            return .refused(
                "App Attest assertion refused: the key is \(key.appID)'s, not an app of client \(client.id)")
        }
        switch AppAttestVerifier.verifyAssertion(assertion, clientDataHash: clientDataHash, key: key) {
        case .failure(let failure):
            return .refused("App Attest assertion refused: \(failure)")
        case .success(let counter):
            let advanced: Bool
            do { advanced = try await store.advanceAppAttestCounter(keyID, to: counter) } catch {
                return .refused("the key store could not be written")
            }
            guard advanced else {
                return .refused("App Attest assertion refused: its counter was already used")
            }
            return .attested(thumbprint: jkt, data: Self.data(key, counter: counter, first: false, trust: trust))
        }
    }

    /// What the CAT's `data` says about the verified device.
    static func data(_ key: AppAttestKey, counter: UInt32, first: Bool, trust: AppAttestVerifier.Trust) -> JSONObject {
        [
            "format": "apple-appattest", "appId": .string(key.appID), "keyId": .string(key.keyID),
            "environment": .string(trust.environment.rawValue), "counter": .number(JSONNumber(Int(counter))),
            "verified": .string(first ? "attestation" : "assertion"),
        ]
    }
}
