import Foundation
@_spi(Tooling) import HaapiSdk

/// A transport that answers from a script instead of a server, for an app's unit tests: the HAAPI requests get
/// the scripted responses in order, and the token endpoint, which the SDK asks for its HAAPI token and for the
/// code's tokens, gets `tokenResponse`. Every request is kept, so a test can look at what the app sent.
public actor ScriptedTransport: HTTPTransport {
    private var script: [ResponseAndData]
    private let tokenEndpoint: URL
    private let tokenResponse: @Sendable (HTTPRequest) -> HTTPResponse
    /// The requests sent so far, in order.
    public private(set) var requests: [HTTPRequest] = []

    /// `responses` answer the requests that are not to `tokenEndpoint`, in order; a request past the end of
    /// the script gets a 599 response, which the SDK reports as a communication error.
    public init(
        responses: [ResponseAndData], tokenEndpoint: URL,
        tokenResponse: (@Sendable (HTTPRequest) -> HTTPResponse)? = nil
    ) {
        script = responses
        self.tokenEndpoint = tokenEndpoint
        self.tokenResponse =
            tokenResponse ?? { request in IdsvrHaapiSdkTestUtils.bearerTokenResponse(for: request.url) }
    }

    /// The token endpoint's answer for a token request, the next scripted response for any other.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        requests.append(request)
        if request.url.path == tokenEndpoint.path, request.url.host == tokenEndpoint.host {
            return tokenResponse(request)
        }
        guard !script.isEmpty else {
            return HTTPResponse(
                statusCode: 599, headers: [:], body: Data("the script has ended".utf8), url: request.url)
        }
        let next = script.removeFirst().response
        // The address is the request's: what the app asked for, whatever the script was written with.
        return HTTPResponse(statusCode: next.statusCode, headers: next.headers, body: next.body, url: request.url)
    }

    /// The scripted responses not used yet.
    public var remaining: Int { script.count }
}
