import Foundation
import Hummingbird

/// The server's public address, for everything that writes URLs into responses or checks a proof's `htu`.
protocol PublicAddressing: Sendable {
    var address: ServerAddress { get }
}

extension PublicAddressing {
    /// The issuer: the base URL clients reach the server at.
    var issuer: String { address.issuer }

    var scheme: String { address.scheme }

    var boundPort: Int { address.boundPort }

    func url(_ path: String) -> String { issuer + path }

    /// The issuer's origin (`scheme://host[:port]`, RFC 6454): what a browser names in `Origin` for the
    /// server's own pages, and the WebAuthn origin of its passkey pages.
    var issuerOrigin: String {
        guard let url = URL(string: issuer), let scheme = url.scheme, let host = url.host else { return issuer }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return url.port.map { "\(scheme)://\(shownHost):\($0)" } ?? "\(scheme)://\(shownHost)"
    }

    /// The issuer's path (empty at the root): pages link to the server's own files under it, so a link
    /// stays on whatever origin the browser reached the page at.
    var issuerPath: String {
        let path = URL(string: issuer)?.path ?? ""
        return path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// The URL a request was sent to, as the server's public base URL names it: what a DPoP proof's `htu`
    /// must match (RFC 9449 §4.3). Never built from the `Host` header, which the sender chooses.
    func publicRequestURL(_ request: Request) -> String {
        issuer + request.uri.path
    }
}
