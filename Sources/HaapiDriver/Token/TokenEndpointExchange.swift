import Foundation

/// Sends OAuth form requests (token, CAT, revocation, registration) with a DPoP proof that carries the
/// origin's latest nonce, and retries exactly once when the server answers `use_dpop_nonce`.
public struct TokenEndpointExchange: Sendable {
    public let transport: any HttpTransport
    public let nonces: DpopNonceStore

    public init(transport: any HttpTransport, nonces: DpopNonceStore = DpopNonceStore()) {
        self.transport = transport
        self.nonces = nonces
    }

    /// POSTs `request` as `application/x-www-form-urlencoded` with `Accept: application/json`.
    /// `dpop` adds a proof; `authenticate` adds the client's credentials (it runs again on the retry,
    /// so a client assertion is never sent twice).
    public func post(_ request: TokenEndpointRequest, dpop: Dpop?,
                     authenticate: (inout TokenEndpointRequest) throws(HaapiError) -> Void = { _ throws(HaapiError) in }) async throws(HaapiError) -> HttpResponse {
        var response = try await postOnce(request, dpop: dpop, authenticate: authenticate)
        if dpop != nil, isUseDpopNonce(response) {
            HaapiLogger.debug(DriverFollowUpTag.http, "server asked for a DPoP nonce at \(sensitive: request.url.path); retrying once")
            response = try await postOnce(request, dpop: dpop, authenticate: authenticate)
        }
        return response
    }

    private func postOnce(_ request: TokenEndpointRequest, dpop: Dpop?,
                          authenticate: (inout TokenEndpointRequest) throws(HaapiError) -> Void) async throws(HaapiError) -> HttpResponse {
        var authenticated = request
        try authenticate(&authenticated)
        var http = HttpRequest(method: "POST", url: request.url, headers: authenticated.headers,
                               body: Data(FormURLEncoding.encode(authenticated.form).utf8))
        http.setHeader(HttpHeaderNames.contentType, MimeTypes.formURLEncoded)
        http.setHeader(HttpHeaderNames.accept, MimeTypes.json)
        if let dpop {
            let nonce = await nonces.nonce(for: request.url)
            do { http.setHeader(HttpHeaderNames.dpop, try dpop.createProof(httpMethod: "POST", url: request.url, nonce: nonce)) } catch {
                throw .dpopProofCreationFailure(cause: error)
            }
        }
        return try await send(http)
    }

    /// Sends any request, records its nonce, and turns transport failures into `HaapiError.communication`.
    public func send(_ request: HttpRequest) async throws(HaapiError) -> HttpResponse {
        let response: HttpResponse
        do { response = try await transport.send(request) } catch {
            HaapiLogger.warning(DriverFollowUpTag.http, "\(request.method) \(sensitive: request.url.absoluteString) failed: \(error)")
            throw .communication(message: error.description, cause: error)
        }
        await nonces.record(response)
        HaapiLogger.debug(DriverFollowUpTag.http, "\(request.method) \(sensitive: request.url.absoluteString) → \(response.statusCode)")
        return response
    }
}

/// Reads an OAuth JSON response body: the object, or an error that says what was wrong with it.
func oauthJSON(_ response: HttpResponse) throws(HaapiError) -> JSONObject {
    guard response.mediaType == MimeTypes.json || response.mediaType.hasSuffix("+json") else {
        if response.statusCode >= 500 { throw .serverError(error: "server_error", errorDescription: "HTTP \(response.statusCode)", statusCode: response.statusCode) }
        throw .communication(message: "expected JSON from \(response.url.path), got \"\(response.mediaType)\" (HTTP \(response.statusCode))", cause: nil)
    }
    let value: JSONValue
    do { value = try JSONParser(limits: .init(maxBytes: 1024 * 1024, maxDepth: 32)).parse(response.body) } catch {
        throw .communication(message: "unreadable JSON from \(response.url.path) (HTTP \(response.statusCode))", cause: error)
    }
    guard let object = value.objectValue else { throw .communication(message: "the JSON from \(response.url.path) is not an object", cause: nil) }
    return object
}

/// The OAuth error in a non-2xx JSON response, as a `HaapiError.serverError`.
func oauthError(_ response: HttpResponse) -> HaapiError {
    guard let object = try? oauthJSON(response), let error = object["error"]?.stringValue else {
        return response.statusCode >= 500
            ? .serverError(error: "server_error", errorDescription: "HTTP \(response.statusCode)", statusCode: response.statusCode)
            : .invalidStatusCode(statusCode: response.statusCode)
    }
    return .serverError(error: error, errorDescription: object["error_description"]?.stringValue ?? "", statusCode: response.statusCode)
}
