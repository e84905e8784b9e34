import Foundation

/// An HTTP response together with its body, as the seed's SDK hands them around (and as a scripted transport in
/// an app's unit tests lists them).
public struct ResponseAndData: Sendable {
    /// The response: status, headers (names lower-cased) and the address it came from.
    public let response: HTTPResponse
    /// The body as received.
    public var data: Data { response.body }

    /// The response `response`, body included.
    public init(_ response: HTTPResponse) {
        self.response = response
    }

    /// A response from its parts, for tests: `json` is the body, sent with `contentType`.
    public init(statusCode: Int = 200, headers: [String: String] = [:], data: Data, url: URL) {
        response = HTTPResponse(statusCode: statusCode, headers: headers, body: data, url: url)
    }
}
