import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRules

/// Why a DPoP proof was refused. Each case maps to the error a client sees, to the rule it breaks, and to
/// what was expected against what came (for the server's log line; no proof or token in it).
enum DPoPFailure: Error, Equatable, CustomStringConvertible {
    /// Why a nonce was refused.
    enum NonceProblem: Equatable {
        case missing, unknown, stale
    }

    case missing
    case multipleHeaders
    case malformed(Rule, String)
    case methodMismatch(expected: String, got: String)
    case urlMismatch(expected: String, got: String)
    /// `offset`: the proof's `iat` minus the server's clock, in seconds (nil: the replay memory had already
    /// moved past the proof's second).
    case iatOutOfWindow(offset: Int?, window: Int)
    case replayed
    case nonce(NonceProblem)
    case athMissing
    case athMismatch
    case keyMismatch
    /// The replay filter has taken all the proofs it can for now (its budget); `retryAfter` seconds.
    case overloaded(retryAfter: Int)

    var description: String {
        switch self {
        case .missing: "Missing DPoP Proof Token"
        case .multipleHeaders: "More than one DPoP header"
        case .malformed(_, let detail): "Malformed DPoP proof: \(detail)"
        case .methodMismatch: "htm does not match the request method"
        case .urlMismatch: "htu does not match the request URL"
        case .iatOutOfWindow: "iat is outside the accepted window"
        case .replayed: "DPoP proof replayed (jti already used)"
        case .nonce: "use the provided DPoP nonce"
        case .athMissing: "ath claim missing"
        case .athMismatch: "ath does not match the access token"
        case .keyMismatch: "DPoP key does not match the token binding"
        case .overloaded(let seconds): "the server cannot take more proofs right now; retry in \(seconds) s"
        }
    }

    /// `use_dpop_nonce` for a missing or stale nonce, `invalid_dpop_proof` otherwise.
    var errorCode: String {
        if case .nonce = self { return "use_dpop_nonce" }
        return "invalid_dpop_proof"
    }

    var rule: Rule {
        switch self {
        case .missing: .dpopMissing
        case .multipleHeaders: .dpopMultipleHeaders
        case .malformed(let rule, _): rule
        case .methodMismatch: .dpopHtmMismatch
        case .urlMismatch: .dpopHtuMismatch
        case .iatOutOfWindow: .dpopIatWindow
        case .replayed: .dpopReplay
        case .nonce(.missing): .dpopNonceMissing
        case .nonce(.unknown): .dpopNonceUnknown
        case .nonce(.stale): .dpopNonceStale
        case .athMissing: .dpopAthMissing
        case .athMismatch: .dpopAthMismatch
        case .keyMismatch: .dpopCnfMismatch
        case .overloaded: .dpopOverloaded
        }
    }

    /// What was expected and what came, in one line without secrets.
    var detail: String {
        switch self {
        case .missing: "DPoP: expected one proof header, got none"
        case .multipleHeaders: "DPoP: expected one proof header, got several"
        case .malformed(_, let detail): detail
        case .methodMismatch(let expected, let got): "htm: expected \(expected), got \(got.prefix(20))"
        case .urlMismatch(let expected, let got): "htu: expected \(expected), got \(MaskedText.url(got))"
        case .iatOutOfWindow(let offset?, let window):
            "iat: \(abs(offset)) s \(offset < 0 ? "before" : "after") the server's clock, window ±\(window) s"
        case .iatOutOfWindow(nil, let window):
            "iat: older than the replay memory's window (±\(window) s) reaches back"
        case .replayed: "jti: this proof was accepted before"
        case .nonce(.missing):
            "nonce: none, the current one was sent in DPoP-Nonce (a client's first proof gets this; it retries with it)"
        case .nonce(.unknown): "nonce: unknown, the current one was sent in DPoP-Nonce"
        case .nonce(.stale): "nonce: no longer current, the new one was sent in DPoP-Nonce"
        case .athMissing: "ath: expected the access token's hash, got none"
        case .athMismatch: "ath: not the hash of the access token in Authorization"
        case .keyMismatch: "jkt: the proof's key is not the key the token, code or refresh token is bound to"
        case .overloaded(let seconds): "replay memory full; retry in \(seconds) s"
        }
    }

    /// The rule a proof that did not parse breaks, read from its header where it has one: `typ`, `alg`
    /// and `jwk` are told apart, the signature and the claims otherwise by the parse error.
    static func unparsed(_ compact: String, error: any Error, algorithms: Set<JWSAlgorithm>) -> DPoPFailure {
        guard let jws = try? CompactJWS(parsing: compact) else {
            return .malformed(.dpopMalformed, "the proof is not a compact JWS (\(error))")
        }
        let typ = jws.header["typ"]?.stringValue
        guard typ == Dpop.proofType else {
            return .malformed(
                .dpopTyp, "typ: expected \(Dpop.proofType), got \(typ.map { String($0.prefix(40)) } ?? "none")")
        }
        let alg = jws.header["alg"]?.stringValue ?? "none"
        guard let algorithm = JWSAlgorithm(rawValue: alg), algorithm.isAsymmetric, algorithms.contains(algorithm)
        else {
            let accepted = algorithms.map(\.rawValue).sorted().joined(separator: " ")
            return .malformed(.dpopAlg, "alg: expected one of \(accepted), got \(alg.prefix(20))")
        }
        guard let jwk = jws.header["jwk"], let key = try? JWK(json: jwk) else {
            return .malformed(
                .dpopJWK, "jwk: expected a public key, got \(jws.header["jwk"] == nil ? "none" : "an unusable key")")
        }
        if key.hasPrivateMembers {
            return .malformed(.dpopJWK, "jwk: expected a public key, got one with private members")
        }
        if case JOSEError.invalidSignature = error {
            return .malformed(.dpopSignature, "signature: does not verify with the jwk in the header")
        }
        return .malformed(.dpopMalformed, "\(error)")
    }
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
        let compact = String(HTTP.trimmingOWS(header))
        do {
            proof = try DPoPProof(parsing: compact, allowedAlgorithms: algorithms)
        } catch {
            throw DPoPFailure.unparsed(compact, error: error, algorithms: algorithms)
        }
        RequestTrace.proofKey(proof.thumbprint)
        guard proof.htm == method.uppercased() else {
            throw .methodMismatch(expected: method.uppercased(), got: proof.htm)
        }
        guard Self.sameResource(proof.htu, requestURL) else { throw .urlMismatch(expected: requestURL, got: proof.htu) }
        let issued = Date(timeIntervalSince1970: TimeInterval(proof.iat))
        let offset = issued.timeIntervalSince(now)
        guard abs(offset) <= iatWindow else {
            // Clamped before the conversion: a client's iat can be any Int, and Int(Double) traps out of range.
            throw .iatOutOfWindow(offset: Int(max(-1e12, min(1e12, offset.rounded()))), window: Int(iatWindow))
        }
        if requireNonce {
            guard let nonce = proof.nonce else { throw .nonce(.missing) }
            switch await nonces.check(nonce, now: now) {
            case .current: break
            case .stale: throw .nonce(.stale)
            case .unknown: throw .nonce(.unknown)
            }
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
        case .expired: throw .iatOutOfWindow(offset: nil, window: Int(iatWindow))
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
