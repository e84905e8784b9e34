import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The raw side of a token-endpoint response: for apps that need headers (`dpop-nonce`) or members the
/// typed responses do not carry.
///
/// Unchecked because the seed's hierarchy is open (the three subclasses below), and the compiler checks
/// `Sendable` only on final classes; every member here and in the subclasses is an immutable `let`, and
/// `httpURLResponse` is never mutated after init.
public class HTTPURLResponseContent: @unchecked Sendable {
    /// The response body as received.
    public let data: Data
    /// The JSON body as a dictionary (`[:]` when the body is not a JSON object).
    public let dataAsDictionary: [String: any Sendable]
    /// Header names are lower-cased.
    public let headerFields: [String: String]
    /// The HTTP status, or `nil` when no response came.
    public let statusCode: Int?
    /// The response's status and headers, as Foundation's type.
    public let httpURLResponse: HTTPURLResponse?

    init(_ response: HTTPResponse?) {
        data = response?.body ?? Data()
        let object =
            response.flatMap {
                try? JSONParser(limits: .init(maxBytes: 1024 * 1024, maxDepth: 32)).parse($0.body).objectValue
            } ?? [:]
        dataAsDictionary = object.foundationDictionary
        headerFields = response?.headers ?? [:]
        statusCode = response?.statusCode
        httpURLResponse = response.flatMap {
            HTTPURLResponse(url: $0.url, statusCode: $0.statusCode, httpVersion: "HTTP/1.1", headerFields: $0.headers)
        }
    }
}

/// A response that could not be read as a token response, or no response at all.
// Unchecked as its base class is (`error` is an immutable `let`).
public final class ErrorHTTPURLResponseContent: HTTPURLResponseContent, @unchecked Sendable {
    /// Why: the transport's error, or what was wrong with the body.
    public let error: any Error

    init(_ response: HTTPResponse?, error: any Error) {
        self.error = error
        super.init(response)
    }
}

/// Told about every token-endpoint response `OAuthTokenManager` receives, on the main actor and before the
/// call that caused it returns. A plain class conforming to it is main-actor isolated, so it may keep state.
@MainActor
public protocol TokenEndpointResponseListener: Sendable {
    /// A response with tokens.
    func onSuccess(_ value: OAuthTokenManager.SuccessTokenHTTPURLResponseContent)
    /// An OAuth error response (`invalid_grant`, …).
    func onTokenError(_ value: OAuthTokenManager.ErrorTokenHTTPURLResponseContent)
    /// No usable response: the transport failed or the body could not be read.
    func onError(_ value: ErrorHTTPURLResponseContent)
}

extension OAuthTokenManager {
    /// The seed's name for `TokenEndpointResponseListener`, nested in the manager.
    public typealias TokenEndpointResponseListener = HaapiSdk.TokenEndpointResponseListener

    // Unchecked as the base class is; every member is an immutable `let`.
    /// A token-endpoint response with tokens.
    public final class SuccessTokenHTTPURLResponseContent: HTTPURLResponseContent, @unchecked Sendable {
        /// The tokens, read.
        public let successfulTokenResponse: SuccessfulTokenResponse

        /// Always nil: a successful response carries no error (the member mirrors `ErrorHTTPURLResponseContent`).
        public var error: (any Error)? { nil }

        init(_ response: HTTPResponse, _ token: SuccessfulTokenResponse) {
            successfulTokenResponse = token
            super.init(response)
        }
    }

    // Unchecked as the base class is; every member is an immutable `let`.
    /// A token-endpoint response with an OAuth error.
    public final class ErrorTokenHTTPURLResponseContent: HTTPURLResponseContent, @unchecked Sendable {
        /// The OAuth error, read.
        public let errorTokenResponse: ErrorTokenResponse

        /// Always nil: the server's OAuth error is `errorTokenResponse`.
        public var error: (any Error)? { nil }

        init(_ response: HTTPResponse, _ error: ErrorTokenResponse) {
            errorTokenResponse = error
            super.init(response)
        }
    }
}
