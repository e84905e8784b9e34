import Foundation

/// One HTTP request as plain data. Header names keep the caller's spelling; look-ups are case-insensitive.
public struct HTTPRequest: Sendable {
    /// The HTTP method.
    public var method: String
    /// The absolute address.
    public var url: URL
    /// The headers, in order; a name may repeat.
    public var headers: [(name: String, value: String)]
    /// The body, when there is one.
    public var body: Data?
    /// Seconds for the whole exchange; `nil` uses the transport's default.
    public var timeout: TimeInterval?

    /// A request from its parts; `timeout` overrides the transport's deadline.
    public init(
        method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil,
        timeout: TimeInterval? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The seconds this exchange may take: `timeout`, else `fallback`, kept between 1 ms and a day so a
    /// zero, negative, infinite or NaN value can never turn into a trap when converted to nanoseconds.
    public func deadline(default fallback: TimeInterval) -> TimeInterval {
        Self.clampedDeadline(timeout ?? fallback)
    }

    /// `seconds` kept between 1 ms and a day (a NaN as 30 s): a deadline every transport can convert.
    public static func clampedDeadline(_ seconds: TimeInterval) -> TimeInterval {
        guard seconds.isFinite else { return seconds.isNaN ? 30 : 86_400 }
        return min(max(seconds, 0.001), 86_400)
    }

    /// The first value of a header, by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Sets a header, replacing any value of the same name.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        headers.append((name, value))
    }
}

/// A received response. Header names are lower-cased; repeated headers are joined with ", ".
public struct HTTPResponse: Sendable {
    /// The HTTP status.
    public let statusCode: Int
    /// The headers, names lower-cased.
    public let headers: [String: String]
    /// The body, possibly empty.
    public let body: Data
    /// The address the request went to.
    public let url: URL

    /// A response from its parts; header names are lower-cased here.
    public init(statusCode: Int, headers: [String: String], body: Data, url: URL) {
        self.statusCode = statusCode
        var lowered: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            lowered[key] = lowered[key].map { $0 + ", " + value } ?? value
        }
        self.headers = lowered
        self.body = body
        self.url = url
    }

    /// A header's value, by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The media type without parameters, lower-cased (`application/json`).
    public var mediaType: String { header("content-type").map(HaapiMediaType.essence(of:)) ?? "" }
}

/// Sends HTTP requests. The SDK talks to the network only through this seam, so tests can put a stub in
/// its place and apps can bring their own stack.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns its response without following redirects; any status is a response, not an error.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}

/// Why an exchange produced no response. The cases say how far the request got, because that decides what may
/// be done next: a request that never left can be sent again; one whose answer was lost may have been acted on
/// (the SDK sends a lost GET again by itself, never a POST); a request without an answer in time was abandoned.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection: the name did not resolve, nothing listened, there was no network, TLS failed or a pin did
    /// not match. Nothing was sent.
    case couldNotConnect(String)
    /// The connection was lost before a complete answer arrived: reset or closed once in use. The request may
    /// have been sent, and the server may have processed it.
    case answerLost(String)
    /// No complete answer within the deadline, in seconds. The server may have processed the request.
    case timedOut(after: TimeInterval)
    /// An answer came that is not HTTP, or could not be read.
    case invalidResponse(String)
    /// The body is larger than the transport accepts.
    case responseTooLarge(limit: Int)
    /// The task was cancelled.
    case cancelled

    public var description: String {
        switch self {
        case .couldNotConnect(let detail): "could not connect: \(detail)"
        case .answerLost(let detail):
            "the connection was lost before the answer came (\(detail)); the server may have processed the request"
        case .timedOut(let seconds): "no answer within \(Self.seconds(seconds)) s"
        case .invalidResponse(let detail): "unreadable response: \(detail)"
        case .responseTooLarge(let limit): "the response is larger than \(limit) bytes"
        case .cancelled: "the request was cancelled"
        }
    }

    /// Whether the server may have received the request (and acted on it).
    public var mayHaveReachedServer: Bool {
        switch self {
        case .couldNotConnect, .cancelled: false
        case .answerLost, .timedOut, .invalidResponse, .responseTooLarge: true
        }
    }

    /// `30`, `2.5`: a deadline in words without a trailing `.0`.
    @_spi(Tooling) public static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

/// Extra headers for every HAAPI request (the app's own headers: tracing, device context, …).
/// It cannot replace the protocol's headers (`Authorization`, `DPoP`, `Accept`, the session header).
public typealias HttpHeadersProvider = @Sendable () -> [String: String]

/// The header names the driver sends and reads.
public enum HttpHeaderNames {
    /// `Accept`.
    public static let accept = "Accept"
    /// `Authorization`: `DPoP <token>` on HAAPI requests.
    public static let authorization = "Authorization"
    /// `Content-Type`.
    public static let contentType = "Content-Type"
    /// `DPoP`: the proof (RFC 9449).
    public static let dpop = "DPoP"
    /// `DPoP-Nonce`: the server's nonce for the next proof.
    public static let dpopNonce = "DPoP-Nonce"
    /// `WWW-Authenticate`.
    public static let wwwAuthenticate = "WWW-Authenticate"
    /// `Session-Id`: the flow's session, sent with every HAAPI request.
    public static let haapiSessionID = "Session-Id"
    /// `Set-Session-Id`: the server starting the flow's session.
    public static let haapiSetSessionID = "Set-Session-Id"

    /// Headers an `HttpHeadersProvider` may not override.
    static let reserved = Set([accept, authorization, dpop, haapiSessionID, contentType].map { $0.lowercased() })
}

/// Media types the driver sends and reads.
public enum MimeTypes {
    /// `application/vnd.auth+json`: a HAAPI step.
    public static let haapi = HaapiMediaType.representation
    /// `application/problem+json`: a HAAPI problem.
    public static let problem = HaapiMediaType.problem
    /// `application/json`: OAuth responses.
    public static let json = "application/json"
    /// `application/x-www-form-urlencoded`: token requests.
    public static let formURLEncoded = "application/x-www-form-urlencoded"
}

/// The SDK's transport: URLSession on every platform (FoundationNetworking's on Linux; see
/// ``URLSessionTransport`` for what it cannot do there, and the HaapiAsyncHTTPClient transport of
/// swift-haapi-integrations for a transport without those limits).
public func defaultHTTPTransport(timeout: TimeInterval = 30) -> any HTTPTransport {
    URLSessionTransport(timeout: timeout)
}

/// A transport that applies `tls` (pins, trusted roots, client identity): URLSession with its TLS delegate on
/// Apple platforms. FoundationNetworking's URLSession has no TLS hooks: on Linux use
/// `AsyncHTTPClientTransport(tls:)` of HaapiAsyncHTTPClient (swift-haapi-integrations); here this throws, naming it.
public func httpTransport(tls: TLSOptions, timeout: TimeInterval = 30) throws -> any HTTPTransport {
    #if canImport(Security) && canImport(Darwin)
    try URLSessionTransport(tls: tls, timeout: timeout)
    #else
    throw TransportError.couldNotConnect(
        "TLS options need URLSession's TLS delegate (Apple platforms) or AsyncHTTPClientTransport(tls:) of HaapiAsyncHTTPClient (swift-haapi-integrations) on Linux"
    )
    #endif
}

/// A transport whose requests, when they set no deadline of their own, get `seconds`: how an app's
/// `requestTimeout` reaches whichever transport it uses.
public struct DeadlineTransport: HTTPTransport {
    /// The transport that sends.
    public let inner: any HTTPTransport
    /// The deadline of a request that sets none.
    public let seconds: TimeInterval

    /// `inner`, with `seconds` for every request that sets no deadline (kept between 1 ms and a day).
    public init(_ inner: any HTTPTransport, seconds: TimeInterval) {
        self.inner = inner
        self.seconds = HTTPRequest.clampedDeadline(seconds)
    }

    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        var request = request
        if request.timeout == nil { request.timeout = seconds }
        return try await inner.send(request)
    }
}
