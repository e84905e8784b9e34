import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiDriver
import HaapiRules
import Hummingbird

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
        if case .nonce = failure, headers[.dpopNonce] == nil {
            headers[.dpopNonce] = await nonces.nonce(now: clock())
        }
        if case .overloaded(let seconds) = failure {
            headers[.retryAfter] = String(seconds)
            return HTTP.oauthError(
                "temporarily_unavailable", failure.description, rule: failure.rule, detail: failure.detail,
                status: .serviceUnavailable, headers: headers)
        }
        let description = failure == .keyMismatch ? bindingFailure ?? failure.description : failure.description
        switch shape {
        case .authorizationServer:
            return HTTP.oauthError(
                failure.errorCode, description, rule: failure.rule, detail: failure.detail, headers: headers)
        case .protectedResource:
            return resourceChallenge(
                failure.errorCode, description, rule: failure.rule, detail: failure.detail, headers: headers)
        }
    }

    /// A protected resource's `401` with `WWW-Authenticate: DPoP error=…` (RFC 9449 §7.1, §9); `algs` lists
    /// the algorithms the server is configured to accept (`dpop.algorithms`), as its metadata does.
    func resourceChallenge(
        _ error: String, _ description: String, rule: Rule, detail: String? = nil, headers: HTTPFields = [:]
    ) -> Response {
        var fields = headers
        let escaped = HTTP.described(description, rule).replacingOccurrences(of: "\"", with: "'")
        let algorithms = dpop.algorithms.map(\.rawValue).sorted().joined(separator: " ")
        fields[.wwwAuthenticate] =
            "DPoP error=\"\(error)\", error_description=\"\(escaped)\", algs=\"\(algorithms)\""
        return HTTP.oauthError(error, description, rule: rule, detail: detail, status: .unauthorized, headers: fields)
    }
}
