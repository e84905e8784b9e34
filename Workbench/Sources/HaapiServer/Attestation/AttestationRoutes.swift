import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiDriver
import HaapiRules
import Hummingbird

/// Attestation challenges: single use, short-lived, bound to the client that asked. Anyone may ask for
/// one, so the store is bounded and expiring (the oldest challenge goes first when it is full).
actor AttestationChallenges {
    private struct Pending: Sendable {
        let clientID: String
        let expiresAt: Date
    }

    private var pending: ExpiringStore<String, Pending>

    init(capacity: Int = 10_000) {
        pending = ExpiringStore(capacity: capacity)
    }

    func issue(for clientID: String, lifetime: TimeInterval, now: Date) -> String {
        let challenge = SecureRandom.token(byteCount: 32)
        let expiry = now.addingTimeInterval(lifetime)
        // Kept a moment past expiry, so a late answer is told "expired" rather than "unknown".
        pending.set(
            Pending(clientID: clientID, expiresAt: expiry), for: challenge, expiresAt: expiry.addingTimeInterval(60),
            now: now)
        return challenge
    }

    var count: Int { pending.count }

    /// The store's work so far (``ExpiringStore/work``).
    var work: Int { pending.work }

    enum Outcome { case valid, unknownOrUsed, expired, otherClient }

    /// Consumes the challenge whatever the outcome, so it can never be tried twice.
    func consume(_ challenge: String, clientID: String, now: Date) -> Outcome {
        guard let entry = pending.remove(challenge, now: now) else { return .unknownOrUsed }
        guard entry.expiresAt > now else { return .expired }
        guard entry.clientID == clientID else { return .otherClient }
        return .valid
    }
}

/// The software attestation format of the `software` policy (docs/ATTESTATION.md): a compact ES256 JWS with
/// header `{"alg":"ES256","typ":"haapi-attestation+jwt","jwk":…}` and payload `{"challenge","client_id","iat"}`.
enum AttestationVerdict {
    /// The key the CAT binds, and what was verified about the device (the CAT's `data`).
    case attested(thumbprint: String, data: JSONObject)
    case refused(String)
}

enum SoftwareAttestation {
    static let type = "haapi-attestation+jwt"

    /// The attested key's thumbprint, or why the response is refused.
    static func verify(
        _ response: String, challenge: String, clientID: String, now: Date, window: TimeInterval
    ) -> AttestationVerdict {
        guard let jws = try? CompactJWS(parsing: response) else {
            return .refused("the challenge response is not a compact JWS")
        }
        guard jws.header["typ"]?.stringValue == type else { return .refused("typ must be \(type)") }
        guard let jwkValue = jws.header["jwk"], let jwk = try? JWK(json: jwkValue), !jwk.hasPrivateMembers,
            jwk.keyType == "EC", jwk.curve == "P-256"
        else { return .refused("the header must carry a public P-256 jwk") }
        do {
            try jws.verify(with: jwk, allowedAlgorithms: [.es256])
        } catch {
            return .refused("bad attestation signature")
        }
        guard let claims = try? jws.payloadObject() else { return .refused("the payload is not JSON") }
        guard let signed = claims["challenge"]?.stringValue, ConstantTime.equals(signed, challenge) else {
            return .refused("the signed challenge does not match")
        }
        guard claims["client_id"]?.stringValue == clientID else {
            return .refused("the signed client_id does not match")
        }
        guard let iat = claims["iat"]?.numberValue?.intValue, abs(Double(iat) - now.timeIntervalSince1970) <= window
        else {
            return .refused("iat is missing or outside the accepted window")
        }
        return .attested(thumbprint: jwk.thumbprint(), data: ["format": "software"])
    }
}

/// Client attestation: the challenge, and the attestation answered with a client attestation token (CAT).
/// It owns the challenges it hands out.
struct AttestationRoutes: ServerService, FormReading, DPoPGated {
    let address: ServerAddress
    let configuration: ServerConfiguration
    let store: ServerStore
    let keys: ServerKeys
    let clients: ClientRegistry
    let dpop: DPoPVerifier
    let nonces: DPoPNonceService
    let clock: @Sendable () -> Date
    /// The `appAttest` policy's verifier, when the configuration has `appAttest` settings.
    let appAttest: AppAttestation?
    /// Challenges handed out and not yet answered (bounded, single use).
    let challenges = AttestationChallenges()
}

extension AttestationRoutes {
    static let catType = "haapi-cat+jwt"

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(stringLiteral: Paths.cat)) { request, _ in try await self.challenge(request) }
        router.post(RouterPath(stringLiteral: Paths.cat)) { request, _ in try await self.clientAttestationToken(request)
        }
    }

    private func attestedClient(_ id: String?) async throws(Rejection) -> ResolvedClient {
        guard let id, !id.isEmpty else {
            throw Rejection(
                HTTP.oauthError(
                    "invalid_request", "client_id is required", rule: .invalidRequest,
                    detail: "client_id: expected the attesting client's id, got none"))
        }
        RequestTrace.client(String(id.prefix(100)))
        guard let client = try await clients.client(id: id), !client.isDynamic, client.configuration.attestation != nil
        else {
            throw Rejection(
                HTTP.oauthError(
                    "invalid_client", "unknown client or a client without attestation", rule: .clientUnknown,
                    detail: "client_id: \(id.prefix(100)) is not a configured client with an attestation policy",
                    status: .unauthorized))
        }
        return client
    }

    func challenge(_ request: Request) async throws(Rejection) -> Response {
        let client: ResolvedClient = try await attestedClient(HTTP.query(request)["client_id"])
        let challenge = await challenges.issue(
            for: client.id, lifetime: TimeInterval(configuration.lifetimes.attestationChallenge), now: clock())
        RequestTrace.current?.update { $0.issuedLink = challenge }
        return HTTP.json(["challenge": .string(challenge)], headers: await nonceHeaders(for: client))
    }

    func clientAttestationToken(_ incoming: Request) async throws(Rejection) -> Response {
        var request = incoming
        let form: [String: String] = try await readForm(&request)
        let client: ResolvedClient = try await attestedClient(form["client_id"] ?? HTTP.query(request)["client_id"])
        let headers = await nonceHeaders(for: client)
        guard let challenge = form["challenge"], let response = form["challenge_response"] else {
            return HTTP.oauthError(
                "invalid_request", "challenge and challenge_response are required", rule: .invalidRequest,
                detail:
                    "expected challenge and challenge_response, got \(form["challenge"] == nil ? "no challenge" : "no challenge_response")",
                headers: headers)
        }
        RequestTrace.current?.update { $0.consumedLink = challenge }
        let now = clock()
        // The proof is checked before the challenge is used up, so a refused proof costs the client nothing.
        let proof = try await checkProof(request, at: .clientAttestation, client: client, required: false)
        switch await challenges.consume(challenge, clientID: client.id, now: now) {
        case .valid: break
        case .unknownOrUsed:
            return HTTP.oauthError(
                "invalid_request", "unknown or already used challenge", rule: .attestationRefused,
                detail: "challenge: not issued by this server, or answered before", headers: headers)
        case .expired:
            return HTTP.oauthError(
                "invalid_request", "the challenge has expired", rule: .attestationRefused,
                detail: "challenge: older than \(configuration.lifetimes.attestationChallenge) s", headers: headers)
        case .otherClient:
            return HTTP.oauthError(
                "invalid_client", "the challenge was issued to another client", rule: .attestationRefused,
                detail: "challenge: issued to another client than \(client.id)", status: .unauthorized,
                headers: headers)
        }
        // The attested key: verified under `software` and `appAttest`; under `disabled`, taken from the DPoP
        // proof if any.
        var jkt: String?
        var data: JSONObject = ["format": "none"]
        let verdict: AttestationVerdict?
        switch client.configuration.attestation {
        case .software?:
            verdict = SoftwareAttestation.verify(
                response, challenge: challenge, clientID: client.id, now: now,
                window: TimeInterval(configuration.dpop.iatWindowSeconds))
        case .appAttest?:
            verdict =
                await appAttest?.verify(response, challenge: challenge, client: client.configuration, now: now)
                ?? .refused("the server has no appAttest settings")
        case .disabled?, nil:
            verdict = nil
        }
        switch verdict {
        case .attested(let thumbprint, let verified)?:
            jkt = thumbprint
            // The attested key is the device's DPoP key: it ties this request to the flow that follows.
            RequestTrace.proofKey(thumbprint)
            data = verified
        case .refused(let reason)?:
            return HTTP.oauthError(
                "unsupported_device", reason, rule: .attestationRefused,
                detail: "\(client.configuration.attestation?.rawValue ?? "disabled") attestation: \(reason)",
                headers: headers)
        case nil:
            break
        }
        if let proof {
            if let attested = jkt, proof.thumbprint != attested {
                return HTTP.oauthError(
                    "unsupported_device", "the DPoP key differs from the attested key", rule: .dpopCnfMismatch,
                    detail: "jkt: the proof's key is not the attested key", headers: headers)
            }
            jkt = jkt ?? proof.thumbprint
        }
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": .string(client.id), "aud": .string(url(Paths.token)), "purpose": "cat",
            "type": .string(client.configuration.attestation?.rawValue ?? "disabled"),
            "iat": .number(JSONNumber(Int(now.timeIntervalSince1970))),
            "exp": .number(JSONNumber(Int(now.timeIntervalSince1970) + configuration.lifetimes.clientAttestationToken)),
            "jti": .string(SecureRandom.token(byteCount: 16)),
        ]
        claims["data"] = .object(data)
        if let jkt {
            // Both spellings: `jkt` as the vendor's CAT carries it (seed 003), `cnf.jkt` as RFC 9449 binds keys.
            claims["jkt"] = .string(jkt)
            claims["cnf"] = ["jkt": .string(jkt)]
        }
        guard let cat = try? keys.sign(claims: claims, type: Self.catType) else {
            return HTTP.oauthError(
                "server_error", "could not sign the client attestation token", rule: .serverError,
                status: .internalServerError)
        }
        return HTTP.json(["cat": .string(cat)], headers: headers)
    }
}
