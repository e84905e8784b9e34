import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// A response from the Authentication Hub: status, headers (lower-cased) and the JSON body.
public struct AHRequestResult: Sendable {
    /// The HTTP status.
    public let statusCode: Int
    /// The response headers, names lower-cased.
    public let headers: [String: String]
    /// The body as our parser read it: `[:]` when the body is empty or not a JSON object.
    public let json: JSONObject

    /// The body as a dictionary of Foundation values, the seed's shape.
    public var data: [String: Any] { json.foundationDictionary }

    /// A result from a status, headers and a body already read.
    public init(statusCode: Int, headers: [String: String], json: JSONObject) {
        self.statusCode = statusCode
        self.headers = headers
        self.json = json
    }

    /// A result from a dictionary (a custom request object's own transport). Members without a JSON form
    /// are left out.
    public init(statusCode: Int, headers: [String: String], data: [String: Any]) {
        self.init(statusCode: statusCode, headers: headers, json: JSONObject(jsonMembersOf: data))
    }
}

/// Sends Authentication Hub requests.
public protocol AHAPIRequest: AnyObject, Sendable {
    /// Sends the call `endpoint` describes and reads the answer.
    func sendRequest(endpoint: AuthHubEndpoint) async throws -> AHRequestResult
    /// Logs every call from now on through `requestLogger`.
    func setRequestLogger(requestLogger: AuthHubRequestLogger)
}

/// The default request object. To change what is sent, subclass it and override `sendRequest(endpoint:)`: set
/// the endpoint's headers or payload, then call `super.sendRequest(endpoint:)` (the seed's example does this
/// with a helper of its own that picks headers per `endpoint.path`).
///
/// Unchecked because the class is `open` (the seed subclasses it) and the compiler checks `Sendable` only on
/// final classes. Its own state is immutable (`transport`) or behind the package's lock wrapper (`logger`).
open class AuthHubBasicRequest: AHAPIRequest, @unchecked Sendable {
    private let logger = LockedValue<(any AuthHubRequestLogger)?>(nil)
    private let transport: any HTTPTransport

    /// Bodies larger or deeper than a hub ever sends are refused rather than parsed.
    static let parserLimits = JSONParser.Limits(maxBytes: 1024 * 1024, maxDepth: 32)

    /// A request object that sends through `transport` (the platform's default: URLSession on Apple, AsyncHTTPClient on
    /// Linux).
    public init(transport: any HTTPTransport = defaultHTTPTransport()) {
        self.transport = transport
    }

    public func setRequestLogger(requestLogger: AuthHubRequestLogger) {
        logger.set(requestLogger)
    }

    /// Sends what `endpoint` holds: its headers and payload, as set by the caller or by an override.
    open func sendRequest(endpoint: AuthHubEndpoint) async throws -> AHRequestResult {
        let http = try endpoint.httpRequest()
        let started = DispatchTime.now().uptimeNanoseconds
        // Its GETs (branding, the hub's public key) are asked again once when their answer is lost; never a POST.
        let response = try await LostAnswerRetry.run(method: http.method, url: http.url) {
            () async throws(TransportError) in try await transport.send(http)
        }
        let elapsed = Int64((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
        let body = (try? JSONParser(limits: Self.parserLimits).parse(response.body))?.objectValue ?? [:]
        let result = AHRequestResult(statusCode: response.statusCode, headers: response.headers, json: body)
        if let logger = logger.get() {
            logger.logRequestData(
                responseTime: elapsed, endPoint: endpoint, respDict: result.data as [String: AnyObject])
        }
        return result
    }
}
