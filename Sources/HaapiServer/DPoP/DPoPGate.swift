import Foundation
import HTTPTypes
import HaapiDriver
import Hummingbird

/// The endpoints that take a DPoP proof, each with its policy: one table, read by ``DPoPGated/checkProof``.
enum DPoPEndpoint: CaseIterable, Sendable {
    /// `/oauth/token` (every grant), `/oauth/revoke`, `/oauth/introspect`.
    case token
    /// `/oauth/token/cat`: the proof names the key the attestation token will be bound to.
    case clientAttestation
    /// The HAAPI endpoints (authorize, authenticators), protected by the HAAPI access token.
    case haapi
    /// `/oauth/register`, protected by a `dcr`-scoped access token.
    case registration

    /// How an endpoint refuses a proof (RFC 9449): as the authorization server (§5, §8: `400` with
    /// `invalid_dpop_proof` or `use_dpop_nonce` in the body) or as a protected resource (§7.1, §9: `401`
    /// with `WWW-Authenticate: DPoP error=…`). Both send `DPoP-Nonce` to clients in nonce mode.
    enum RefusalShape: Sendable { case authorizationServer, protectedResource }

    struct Policy: Sendable {
        let shape: RefusalShape
        /// Whether a client configured with `dpopNonce` must put the server's nonce in its proof here.
        let demandsNonce: Bool
        /// Whether the request presents an access token the proof must be bound to (`ath`, `cnf.jkt`).
        let presentsAccessToken: Bool
    }

    var policy: Policy {
        switch self {
        case .token: Policy(shape: .authorizationServer, demandsNonce: true, presentsAccessToken: false)
        // The single-use challenge, not a nonce, makes an attestation fresh; the token endpoint then asks the
        // same key for a nonce.
        case .clientAttestation: Policy(shape: .authorizationServer, demandsNonce: false, presentsAccessToken: false)
        case .haapi: Policy(shape: .protectedResource, demandsNonce: true, presentsAccessToken: true)
        case .registration: Policy(shape: .protectedResource, demandsNonce: true, presentsAccessToken: true)
        }
    }
}

/// Services that answer clients in nonce mode put the current DPoP nonce on their responses.
protocol NonceAdvertising {
    var nonces: DPoPNonceService { get }
    var clock: @Sendable () -> Date { get }
}

extension NonceAdvertising {
    /// Headers that carry the current DPoP nonce to clients in nonce mode.
    func nonceHeaders(for client: ResolvedClient?) async -> HTTPFields {
        guard let client, client.configuration.dpopNonce else { return [:] }
        return [.dpopNonce: await nonces.nonce(now: clock())]
    }
}

/// Services with an endpoint that takes a DPoP proof. They all check it through ``checkProof``.
protocol DPoPGated: PublicAddressing, NonceAdvertising {
    var dpop: DPoPVerifier { get }
}

extension DPoPGated {
    /// The DPoP gate: checks the request's proof for `endpoint` (RFC 9449 §4.3 with `htm` and `htu` of this
    /// request, `iat`, single use, the nonce where the policy and the client demand one, `ath` and the
    /// binding to `boundJKT`) and refuses in the endpoint's shape.
    /// - Parameters:
    ///   - client: the client the request is for; its `dpopNonce` decides nonce mode.
    ///   - accessToken: the token the request presents, for endpoints whose policy has one.
    ///   - boundJKT: the key the token, code or refresh token is bound to.
    ///   - required: whether a request without a proof is refused (else the gate returns `nil`).
    ///   - bindingFailure: what a proof of another key is told, when the endpoint says it its own way.
    /// - Returns: the checked proof, or `nil` when there was none and none was required.
    func checkProof(
        _ request: Request, at endpoint: DPoPEndpoint, client: ResolvedClient?, accessToken: String? = nil,
        boundJKT: String? = nil, required: Bool, bindingFailure: String? = nil
    ) async throws(Rejection) -> DPoPProof? {
        let policy = endpoint.policy
        let values = HTTP.headerValues(request, .dpop)
        if values.isEmpty, !required, boundJKT == nil { return nil }
        do throws(DPoPFailure) {
            return try await dpop.verify(
                headerValues: values, method: request.method.rawValue, requestURL: publicRequestURL(request),
                accessToken: policy.presentsAccessToken ? accessToken : nil, boundJKT: boundJKT,
                requireNonce: policy.demandsNonce && client?.configuration.dpopNonce == true, now: clock())
        } catch {
            throw Rejection(await refusal(error, shape: policy.shape, client: client, bindingFailure: bindingFailure))
        }
    }

    /// The refusal of a proof in `shape`, with the nonce for clients in nonce mode, and `503` with
    /// `Retry-After` when the server is over its proof budget (not the client's fault).
    func refusal(
        _ failure: DPoPFailure, shape: DPoPEndpoint.RefusalShape, client: ResolvedClient?,
        bindingFailure: String? = nil
    ) async -> Response {
        var headers = await nonceHeaders(for: client)
        if failure == .nonceMissingOrStale, headers[.dpopNonce] == nil {
            headers[.dpopNonce] = await nonces.nonce(now: clock())
        }
        if case .overloaded(let seconds) = failure {
            headers[.retryAfter] = String(seconds)
            return HTTP.oauthError(
                "temporarily_unavailable", failure.description, status: .serviceUnavailable, headers: headers)
        }
        let description = failure == .keyMismatch ? bindingFailure ?? failure.description : failure.description
        switch shape {
        case .authorizationServer:
            return HTTP.oauthError(failure.errorCode, description, headers: headers)
        case .protectedResource:
            return Self.resourceChallenge(failure.errorCode, description, headers: headers)
        }
    }

    /// A protected resource's `401` with `WWW-Authenticate: DPoP error=…` (RFC 9449 §7.1, §9).
    static func resourceChallenge(_ error: String, _ description: String, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        let escaped = description.replacingOccurrences(of: "\"", with: "'")
        fields[.wwwAuthenticate] =
            "DPoP error=\"\(error)\", error_description=\"\(escaped)\", algs=\"ES256 ES384 ES512 PS256 RS256\""
        return HTTP.oauthError(error, description, status: .unauthorized, headers: fields)
    }
}
