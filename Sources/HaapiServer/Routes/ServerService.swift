import Foundation
import HaapiDriver
import Hummingbird

/// Where the server is reached: its public base URL, known once `DevServer.start` has bound the port (or
/// given by `--public-url`). Every service reads it; only `start` sets it.
final class ServerAddress: Sendable {
    let scheme: String
    private let bound = LockedValue((issuer: "", port: 0))

    init(scheme: String) {
        self.scheme = scheme
        bound.set(("\(scheme)://127.0.0.1", 0))
    }

    var issuer: String { bound.get().issuer }

    /// The port the server listens on (0 before `start`).
    var boundPort: Int { bound.get().port }

    func set(issuer: String, boundPort: Int) { bound.set((issuer, boundPort)) }
}

/// One of the dev server's services: a route collection with the state it owns, built by `DevServer` with
/// the shared pieces it needs passed to its initializer.
protocol ServerService: PublicAddressing {
    func addRoutes(to router: Router<ServerRequestContext>)
}

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
