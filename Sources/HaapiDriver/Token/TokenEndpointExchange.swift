import Foundation

/// Sends OAuth form requests (token, CAT, revocation, registration) with a DPoP proof that carries the
/// origin's latest nonce, and retries exactly once when the server answers `use_dpop_nonce`.
public struct TokenEndpointExchange: Sendable {
    /// How token requests reach the server.
    public let transport: any HTTPTransport
    /// The server's latest nonces, updated from every response.
    public let nonces: DPoPNonceStore

    /// An exchange over `transport`, keeping nonces in `nonces`.
    public init(transport: any HTTPTransport, nonces: DPoPNonceStore = DPoPNonceStore()) {
        self.transport = transport
        self.nonces = nonces
    }

    /// POSTs `request` as `application/x-www-form-urlencoded` with `Accept: application/json`.
    /// `dpop` adds a proof; `authenticate` adds the client's credentials (it runs again on the retry,
    /// so a client assertion is never sent twice).
    public func post(
        _ request: TokenEndpointRequest, dpop: Dpop?,
        authenticate: (inout TokenEndpointRequest) throws(HaapiError) -> Void = { _ throws(HaapiError) in }
    ) async throws(HaapiError) -> HTTPResponse {
        var response = try await postOnce(request, dpop: dpop, authenticate: authenticate)
        if dpop != nil, isUseDPoPNonce(response) {
            HaapiLogger.debug(
                DriverFollowUpTag.http, "server asked for a DPoP nonce at \(sensitive: request.url.path); retrying once"
            )
            response = try await postOnce(request, dpop: dpop, authenticate: authenticate)
        }
        return response
    }

    private func postOnce(
        _ request: TokenEndpointRequest, dpop: Dpop?,
        authenticate: (inout TokenEndpointRequest) throws(HaapiError) -> Void
    ) async throws(HaapiError) -> HTTPResponse {
        var authenticated = request
        try authenticate(&authenticated)
        var http = HTTPRequest(
            method: "POST", url: request.url, headers: authenticated.headers,
            body: Data(FormURLEncoding.encode(authenticated.form).utf8))
        http.setHeader(HttpHeaderNames.contentType, MimeTypes.formURLEncoded)
        http.setHeader(HttpHeaderNames.accept, MimeTypes.json)
        if let dpop {
            let nonce = await nonces.nonce(for: request.url)
            do {
                http.setHeader(
                    HttpHeaderNames.dpop, try dpop.createProof(httpMethod: "POST", url: request.url, nonce: nonce))
            } catch {
                throw .dpopProofCreationFailure(cause: error)
            }
        }
        return try await send(http)
    }

    /// Sends any request, records its nonce, and turns transport failures into `HaapiError.communication`.
    public func send(_ request: HTTPRequest) async throws(HaapiError) -> HTTPResponse {
        let response: HTTPResponse
        do { response = try await transport.send(request) } catch {
            HaapiLogger.warning(
                DriverFollowUpTag.http, "\(request.method) \(sensitive: request.url.absoluteString) failed: \(error)")
            throw .communication(message: error.description, cause: error)
        }
        await nonces.record(response)
        HaapiLogger.debug(
            DriverFollowUpTag.http,
            "\(request.method) \(sensitive: request.url.absoluteString) → \(response.statusCode)")
        return response
    }
}

extension HTTPResponse {
    /// The body as an OAuth JSON object, or the error that says why it is not one (a 5xx page is a
    /// `serverError`, other media types and broken JSON are `communication`).
    public func oauthObject() throws(HaapiError) -> JSONObject {
        guard mediaType == MimeTypes.json || mediaType.hasSuffix("+json") else {
            if statusCode >= 500 {
                throw .serverError(
                    error: "server_error", errorDescription: "HTTP \(statusCode)", statusCode: statusCode)
            }
            throw .communication(
                message: "expected JSON from \(url.path), got \"\(mediaType)\" (HTTP \(statusCode))", cause: nil)
        }
        let value: JSONValue
        do { value = try JSONParser(limits: .init(maxBytes: 1024 * 1024, maxDepth: 32)).parse(body) } catch {
            throw .communication(message: "unreadable JSON from \(url.path) (HTTP \(statusCode))", cause: error)
        }
        guard let object = value.objectValue else {
            throw .communication(message: "the JSON from \(url.path) is not an object", cause: nil)
        }
        return object
    }

    /// The OAuth error of a failed response, as a `HaapiError`.
    public var oauthError: HaapiError {
        guard let object = try? oauthObject(), let error = object["error"]?.stringValue else {
            return statusCode >= 500
                ? .serverError(error: "server_error", errorDescription: "HTTP \(statusCode)", statusCode: statusCode)
                : .invalidStatusCode(statusCode: statusCode)
        }
        return .serverError(
            error: error, errorDescription: object["error_description"]?.stringValue ?? "", statusCode: statusCode)
    }
}
