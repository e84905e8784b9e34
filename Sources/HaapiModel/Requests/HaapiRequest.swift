import Foundation

/// An HTTP request described as plain data: what a form submission or a link turns into.
/// The transport adds authentication (DPoP) and sends it.
public struct HaapiRequest: Sendable, Hashable {
    /// The HTTP method.
    public var method: String
    /// The absolute address.
    public var url: URL
    /// Header names as sent; look-ups should be case-insensitive.
    public var headers: [String: String]
    /// The body, when there is one.
    public var body: Data?

    /// A request from its parts.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// Why a request could not be built.
public enum HaapiRequestBuildingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An `href` that is not a URL, or that leaves the server.
    case invalidHref(String)
    /// JSON forms can only be sent with POST or PUT.
    case methodNotAllowedForJSON(method: String)
    /// Only text, numbers and booleans fit a URL-encoded form or a query string.
    case valueNotURLEncodable(field: String, valueType: String)
    /// A value of a type a form cannot carry, for a field.
    case unsupportedValue(field: String, valueType: String)

    public var description: String {
        switch self {
        case .invalidHref(let href): "cannot resolve href \"\(href)\""
        case .methodNotAllowedForJSON(let method):
            "a JSON form cannot be sent with \(method); only POST and PUT carry a body"
        case .valueNotURLEncodable(let field, let type): "field \"\(field)\": a \(type) cannot be URL-encoded"
        case .unsupportedValue(let field, let type): "field \"\(field)\": unsupported value type \(type)"
        }
    }
}
