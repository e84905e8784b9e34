import Foundation

/// A HAAPI response as the client saw it: the decoded step or problem, plus the HTTP exchange.
public struct HaapiClientResponse: Sendable {
    /// The step or problem the server answered with.
    public let response: HaapiResponse
    /// The HTTP response it came in.
    public let http: HTTPResponse
}

/// Sends HAAPI requests. Each one carries `Accept: application/vnd.auth+json`, `Authorization: DPoP <token>`,
/// a fresh proof with `ath` and the origin's current nonce, and the flow's session header. It retries once
/// on `use_dpop_nonce`, once with a fresh token when the server no longer accepts the current one, and a GET
/// once more when its answer was lost (``LostAnswerRetry``; never a POST).
public actor HaapiClient {
    /// The token manager whose HAAPI token and DPoP key every request uses.
    public nonisolated let tokenManager: HaapiTokenManager
    nonisolated let exchange: TokenEndpointExchange
    nonisolated let headersProvider: HttpHeadersProvider?
    nonisolated let decoder = HaapiDecoder()
    /// The origins (`scheme://host:port`) that may receive the HAAPI token, proofs, the session and form
    /// values. A step that links elsewhere is refused before anything is sent.
    public nonisolated let allowedOrigins: Set<String>
    private(set) var sessionID: String?

    init(
        tokenManager: HaapiTokenManager, exchange: TokenEndpointExchange, headersProvider: HttpHeadersProvider?,
        allowedOrigins: Set<String>
    ) {
        self.allowedOrigins = allowedOrigins
        self.tokenManager = tokenManager
        self.exchange = exchange
        self.headersProvider = headersProvider
    }

    /// Forgets the flow session (a new flow starts without one).
    public func resetSession() { sessionID = nil }

    /// Sends one HAAPI request with the HAAPI token, a fresh DPoP proof, the origin's latest nonce and the flow's
    /// session header, retrying once on `use_dpop_nonce` and once with a new token on `invalid_token`. Throws
    /// `haapiTokenManagerIsClosed` when the token manager is closed, and `haapiTokenManagerIsExpired` when the
    /// server refused the token and the manager was closed before it could renew it.
    public func send(_ request: HaapiRequest) async throws(HaapiError) -> HaapiClientResponse {
        let origin = DPoPNonceStore.origin(of: request.url)
        guard allowedOrigins.contains(origin) else {
            throw .illegalState(
                message:
                    "refusing to send the HAAPI token and flow data to \(origin), which is not the configured server")
        }
        var token = try await tokenManager.getHaapiTokenAsync()
        var http = try await sendAnswered(request, token: token)
        if isUseDPoPNonce(http) {
            http = try await sendAnswered(request, token: token)
        } else if LostAnswerRetry.applies(to: request.method), http.statusCode == 401,
            http.header(HttpHeaderNames.wwwAuthenticate)?.contains("invalid_dpop_proof") == true
        {
            // URLSession sends a GET again by itself when a kept-alive connection died under it, with the same
            // headers: the server refuses that proof as a replay. Asking again with a new proof is safe.
            HaapiLogger.info(
                DriverFollowUpTag.flow,
                "the proof of GET \(sensitive: request.url.path) was refused; once more with a new one")
            http = try await sendAnswered(request, token: token)
        } else if http.statusCode == 401,
            http.header(HttpHeaderNames.wwwAuthenticate)?.contains("invalid_token") == true
        {
            HaapiLogger.info(DriverFollowUpTag.flow, "the HAAPI access token was refused; obtaining a new one")
            do throws(HaapiError) {
                token = try await tokenManager.getHaapiTokenAsync(forceFresh: true)
            } catch .haapiTokenManagerIsClosed {
                // The token this client holds is dead, and the manager that could renew it was closed since.
                throw .haapiTokenManagerIsExpired
            }
            http = try await sendAnswered(request, token: token)
        }
        return HaapiClientResponse(response: try decode(http), http: http)
    }

    /// One exchange; for a GET whose answer was lost, a second with a new proof (``LostAnswerRetry``).
    private func sendAnswered(
        _ request: HaapiRequest, token: DpopAccessTokenInfo
    ) async throws(HaapiError) -> HTTPResponse {
        try await LostAnswerRetry.run(method: request.method, url: request.url) { () async throws(HaapiError) in
            try await sendOnce(request, token: token)
        }
    }

    private func sendOnce(_ request: HaapiRequest, token: DpopAccessTokenInfo) async throws(HaapiError) -> HTTPResponse
    {
        var http = HTTPRequest(method: request.method, url: request.url, body: request.body)
        if let headersProvider {
            for (name, value) in headersProvider() where !HttpHeaderNames.reserved.contains(name.lowercased()) {
                http.setHeader(name, value)
            }
        }
        for (name, value) in request.headers { http.setHeader(name, value) }
        http.setHeader(HttpHeaderNames.accept, MimeTypes.haapi)
        http.setHeader(HttpHeaderNames.authorization, "DPoP " + token.accessToken.value)
        let nonce = await exchange.nonces.nonce(for: request.url)
        do {
            http.setHeader(
                HttpHeaderNames.dpop,
                try token.dpop.createProof(
                    httpMethod: request.method, url: request.url, nonce: nonce,
                    accessToken: token.accessToken.value))
        } catch {
            throw .dpopProofCreationFailure(cause: error)
        }
        if let sessionID { http.setHeader(HttpHeaderNames.haapiSessionID, sessionID) }
        let response = try await exchange.send(http)
        if let newSession = response.header(HttpHeaderNames.haapiSetSessionID), !newSession.isEmpty {
            sessionID = newSession
        }
        return response
    }

    /// Content type decides: a step, a problem, or an error (any other media type, or an OAuth error). A 502,
    /// 503 or 504 without a step or problem is ``ServerUnavailable``: "not now", with the wait the server asked.
    private func decode(_ http: HTTPResponse) throws(HaapiError) -> HaapiResponse {
        if http.mediaType != MimeTypes.haapi, http.mediaType != MimeTypes.problem,
            let unavailable = ServerUnavailable(http)
        {
            throw .communication(message: unavailable.description, cause: unavailable)
        }
        switch http.mediaType {
        case MimeTypes.haapi, MimeTypes.problem:
            do {
                return try decoder.decode(http.body, contentType: http.mediaType)
            } catch {
                HaapiLogger.error(
                    SdkFollowUpTag.mapping,
                    "undecodable \(http.mediaType) body (HTTP \(http.statusCode)): \(String(describing: error))")
                throw .communication(
                    message: "the \(http.mediaType) body (HTTP \(http.statusCode)) cannot be decoded", cause: error)
            }
        case MimeTypes.json:
            throw http.oauthError
        default:
            if http.statusCode >= 500 {
                throw .serverError(
                    error: "server_error", errorDescription: "HTTP \(http.statusCode)", statusCode: http.statusCode)
            }
            if http.mediaType == "text/html", (200..<300).contains(http.statusCode) {
                // What a hotel's or a train's network answers before its sign-in page was accepted.
                throw .communication(
                    message:
                        "the answer is a web page (text/html, HTTP \(http.statusCode)), not HAAPI: a network's sign-in "
                        + "page (a captive portal) or a proxy may be answering in the server's place", cause: nil)
            }
            throw .communication(
                message: "unexpected content type \"\(http.mediaType)\" (HTTP \(http.statusCode))", cause: nil)
        }
    }
}
