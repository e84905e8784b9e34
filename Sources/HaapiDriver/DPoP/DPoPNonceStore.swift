import Foundation

/// The latest `DPoP-Nonce` each server origin sent (RFC 9449 §8). Every response is offered to it, so
/// the next proof to that origin carries the fresh nonce and the steady state needs no
/// `use_dpop_nonce` round trip.
///
/// There is no process-wide store: a client instance owns one (`HaapiConfiguration.dpopNonceStore` serves
/// both of its managers), so two clients in one process never see each other's nonces.
public actor DPoPNonceStore {
    private var nonces: [String: String] = [:]

    /// An empty store.
    public init() {}

    /// The latest nonce of `url`'s origin, when it sent one.
    public func nonce(for url: URL) -> String? { nonces[Self.origin(of: url)] }

    /// Remembers the response's nonce, if it has one. Returns whether it carried one.
    @discardableResult
    public func record(_ response: HTTPResponse) -> Bool {
        guard let nonce = response.header(HttpHeaderNames.dpopNonce), !nonce.isEmpty else { return false }
        nonces[Self.origin(of: response.url)] = nonce
        return true
    }

    /// Forgets every nonce.
    public func clear() { nonces = [:] }

    /// scheme://host:port, lower-cased, with the default port made explicit.
    static func origin(of url: URL) -> String {
        let scheme = (url.scheme ?? "").lowercased()
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\((url.host ?? "").lowercased()):\(port)"
    }
}

/// Whether a response asks for a new nonce: RFC 9449 §8 (token endpoint: 400 `{"error":"use_dpop_nonce"}`)
/// and §9 (resource: 401 with `WWW-Authenticate: DPoP error="use_dpop_nonce"`).
func isUseDPoPNonce(_ response: HTTPResponse) -> Bool {
    guard response.statusCode == 400 || response.statusCode == 401 else { return false }
    if let challenge = response.header(HttpHeaderNames.wwwAuthenticate), challenge.contains("use_dpop_nonce") {
        return true
    }
    guard response.mediaType.hasSuffix("json"),
        let body = try? JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 8)).parse(response.body)
    else { return false }
    return body["error"]?.stringValue == "use_dpop_nonce"
}
