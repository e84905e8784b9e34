import Crypto
import Foundation
import HaapiDriver
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
            let keyID = object["keyId"]?.stringValue, let jkt = object["jkt"]?.stringValue,
            jkt.utf8.count == 43, Base64URL.decode(jkt)?.count == 32
        else {
            return .failure(
                .malformed(
                    "the challenge response must be base64url JSON with keyId, jkt and an attestation or assertion"))
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

    func verify(_ text: String, challenge: String, clientID: String, now: Date) async -> AttestationVerdict {
        let response: Response
        switch Self.parse(text) {
        case .failure(let failure): return .refused(failure.description)
        case .success(let parsed): response = parsed
        }
        let clientDataHash = Data(SHA256.hash(data: Data("\(challenge).\(clientID).\(response.jkt)".utf8)))
        switch response.proof {
        case .attestation(let object):
            return await attest(
                object, keyID: response.keyID, jkt: response.jkt, clientDataHash: clientDataHash, now: now)
        case .assertion(let assertion):
            return assert(assertion, keyID: response.keyID, jkt: response.jkt, clientDataHash: clientDataHash)
        }
    }

    private func attest(
        _ object: Data, keyID: String, jkt: String, clientDataHash: Data, now: Date
    ) async
        -> AttestationVerdict
    {
        switch await AppAttestVerifier.verifyAttestation(
            object, keyID: keyID, clientDataHash: clientDataHash, trust: trust)
        {
        case .failure(let failure):
            return .refused("App Attest attestation refused: \(failure)")
        case .success(let key):
            do {
                guard try store.insertAppAttestKey(key, now: now) else {
                    return .refused("this App Attest key is already attested; send an assertion")
                }
            } catch {
                return .refused("the attested key could not be stored")
            }
            return .attested(thumbprint: jkt, data: Self.data(key, counter: 0, first: true, trust: trust))
        }
    }

    private func assert(_ assertion: Data, keyID: String, jkt: String, clientDataHash: Data) -> AttestationVerdict {
        guard let key = try? store.appAttestKey(keyID) else {
            return .refused("unknown App Attest key; attest it first")
        }
        switch AppAttestVerifier.verifyAssertion(assertion, clientDataHash: clientDataHash, key: key) {
        case .failure(let failure):
            return .refused("App Attest assertion refused: \(failure)")
        case .success(let counter):
            guard (try? store.advanceAppAttestCounter(keyID, to: counter)) == true else {
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
