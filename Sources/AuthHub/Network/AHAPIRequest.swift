import Foundation
import HaapiDriver

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response from the Authentication Hub: status, headers (lower-cased) and the JSON body as a dictionary.
public struct AHRequestResult: @unchecked Sendable {
    // Immutable; the dictionary holds JSONSerialization values only.
    public let statusCode: Int
    public let headers: [String: String]
    public let data: [String: Any]
}

/// Sends Authentication Hub requests.
public protocol AHAPIRequest: AnyObject, Sendable {
    func sendRequest(endpoint: AuthHubEndpoint) async throws -> AHRequestResult
    func setRequestLogger(requestLogger: AuthHubRequestLogger)
}

/// The default request object. To change what is sent, subclass it and override `sendRequest(endpoint:)`: set
/// the endpoint's headers or payload, then call `super.sendRequest(endpoint:)` (the seed's example does this
/// with a helper of its own that picks headers per `endpoint.path`).
open class AuthHubBasicRequest: AHAPIRequest, @unchecked Sendable {
    // The logger is set once at set-up; the transport is immutable.
    private var logger: AuthHubRequestLogger?
    private let transport: any HttpTransport

    public init(transport: any HttpTransport = defaultHttpTransport()) {
        self.transport = transport
    }

    public func setRequestLogger(requestLogger: AuthHubRequestLogger) {
        logger = requestLogger
    }

    /// Sends what `endpoint` holds: its headers and payload, as set by the caller or by an override.
    open func sendRequest(endpoint: AuthHubEndpoint) async throws -> AHRequestResult {
        let request = try endpoint.build()
        guard let url = request.url else { throw AuthHubEndpoint.BuildError.invalidURL(endpoint.baseURL) }
        var http = HttpRequest(method: request.httpMethod ?? endpoint.path.method, url: url, body: request.httpBody)
        for (name, value) in request.allHTTPHeaderFields ?? [:] { http.setHeader(name, value) }
        let started = DispatchTime.now().uptimeNanoseconds
        let response = try await transport.send(http)
        let elapsed = Int64((DispatchTime.now().uptimeNanoseconds - started) / 1_000_000)
        let body = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
        logger?.logRequestData(responseTime: elapsed, endPoint: endpoint, respDict: body as [String: AnyObject])
        return AHRequestResult(statusCode: response.statusCode, headers: response.headers, data: body)
    }
}
