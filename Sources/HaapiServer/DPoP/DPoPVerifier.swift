import Foundation
import HaapiDriver

/// Why a DPoP proof was refused. Each case maps to the error a client sees.
enum DPoPFailure: Error, Equatable, CustomStringConvertible {
    case missing
    case multipleHeaders
    case malformed(String)
    case methodMismatch
    case urlMismatch
    case iatOutOfWindow
    case replayed
    case nonceMissingOrStale
    case athMissing
    case athMismatch
    case keyMismatch
    /// The replay filter has taken all the proofs it can for now (its budget); `retryAfter` seconds.
    case overloaded(retryAfter: Int)

    var description: String {
        switch self {
        case .missing: "Missing DPoP Proof Token"
        case .multipleHeaders: "More than one DPoP header"
        case .malformed(let detail): "Malformed DPoP proof: \(detail)"
        case .methodMismatch: "htm does not match the request method"
        case .urlMismatch: "htu does not match the request URL"
        case .iatOutOfWindow: "iat is outside the accepted window"
        case .replayed: "DPoP proof replayed (jti already used)"
        case .nonceMissingOrStale: "use the provided DPoP nonce"
        case .athMissing: "ath claim missing"
        case .athMismatch: "ath does not match the access token"
        case .keyMismatch: "DPoP key does not match the token binding"
        case .overloaded(let seconds): "the server cannot take more proofs right now; retry in \(seconds) s"
        }
    }

    /// `use_dpop_nonce` for a missing or stale nonce, `invalid_dpop_proof` otherwise.
    var errorCode: String { self == .nonceMissingOrStale ? "use_dpop_nonce" : "invalid_dpop_proof" }
}

/// Checks a request's DPoP proof: every item of RFC 9449 §4.3, plus `ath` and the `cnf.jkt` binding (§7).
struct DPoPVerifier: Sendable {
    let algorithms: Set<JWSAlgorithm>
    let iatWindow: TimeInterval
    let nonces: DPoPNonceService
    let replayCache: ProofReplayFilter

    /// - Parameters:
    ///   - headerValues: every `DPoP` header of the request (exactly one is allowed).
    ///   - requestURL: the URL the request was sent to, as the server sees it.
    ///   - accessToken: the token the request presents; the proof must carry its `ath`.
    ///   - boundJKT: the thumbprint the token (or code, or refresh token) is bound to.
    func verify(
        headerValues: [String], method: String, requestURL: String, accessToken: String? = nil,
        boundJKT: String? = nil, requireNonce: Bool, now: Date
    ) async throws(DPoPFailure) -> DPoPProof {
        guard let header = headerValues.first else { throw .missing }
        guard headerValues.count == 1 else { throw .multipleHeaders }
        let proof: DPoPProof
        do {
            proof = try DPoPProof(parsing: String(HTTP.trimmingOWS(header)), allowedAlgorithms: algorithms)
        } catch {
            throw .malformed("\(error)")
        }
        guard proof.htm == method.uppercased() else { throw .methodMismatch }
        guard Self.sameResource(proof.htu, requestURL) else { throw .urlMismatch }
        let issued = Date(timeIntervalSince1970: TimeInterval(proof.iat))
        guard abs(issued.timeIntervalSince(now)) <= iatWindow else { throw .iatOutOfWindow }
        if requireNonce {
            guard let nonce = proof.nonce, await nonces.isValid(nonce, now: now) else { throw .nonceMissingOrStale }
        }
        if let accessToken {
            guard let ath = proof.ath else { throw .athMissing }
            guard ConstantTime.equals(ath, Dpop.accessTokenHash(accessToken)) else { throw .athMismatch }
        }
        if let boundJKT, !ConstantTime.equals(proof.thumbprint, boundJKT) { throw .keyMismatch }
        switch await replayCache.record(
            jti: proof.jti, jkt: proof.thumbprint, until: issued.addingTimeInterval(iatWindow + 1), now: now)
        {
        case .accepted: break
        case .replayed: throw .replayed
        case .expired: throw .iatOutOfWindow
        case .full(let retryAfter): throw .overloaded(retryAfter: retryAfter)
        }
        return proof
    }

    /// Whether `htu` names the request URL. `requestURL` is built from the server's public base URL and the
    /// path (no query), so a client that copies it exactly (most do) matches byte for byte without parsing
    /// either; anything else is compared after normalisation.
    static func sameResource(_ htu: String, _ requestURL: String) -> Bool {
        if htu == requestURL { return true }
        guard let claimed = normalized(htu), let actual = normalized(requestURL) else { return false }
        return claimed == actual
    }

    /// RFC 3986 §6.2.2–6.2.3 normalisation: lower-case scheme and host, default port dropped,
    /// empty path as `/`, query and fragment removed. A URL with userinfo names no request this server
    /// answers (and `https://server@evil.example` is a classic look-alike): nil, so it never matches.
    static func normalized(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty,
            components.percentEncodedUser == nil, components.percentEncodedPassword == nil
        else { return nil }
        var port = ""
        if let value = components.port, !(scheme == "http" && value == 80), !(scheme == "https" && value == 443) {
            port = ":\(value)"
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return "\(scheme)://\(host)\(port)\(path)"
    }
}
