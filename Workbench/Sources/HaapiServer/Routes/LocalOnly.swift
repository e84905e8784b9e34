import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiDriver
import HaapiRules
import Hummingbird

/// Services whose pages answer only this machine (the admin endpoints, the outbox and the inspector).
///
/// The peer address alone is not enough: a web page in the developer's browser can reach loopback too, by a
/// cross-site form or by DNS rebinding (a name of the attacker's that resolves to 127.0.0.1), and a reverse
/// proxy on the same machine (the README's HTTPS set-up) makes every peer loopback. So a request must also
/// name this server by a loopback name in `Host` (never the public URL's host, which is what a proxy
/// forwards), must carry no proxy header (`Forwarded`, `X-Forwarded-*`, `Via`), and no foreign `Origin`:
/// curl and `haapi approve` send none of these, a proxy or a browser on another site always does.
protocol LocalOnly: PublicAddressing {}

extension LocalOnly {
    /// Why a request for a local-only page is refused, or nil when it comes from this machine: a loopback
    /// peer, naming this server's loopback address in `Host`, through no proxy, with no foreign `Origin` or
    /// cross-site fetch.
    func localRefusal(_ request: Request, _ context: ServerRequestContext) -> Response? {
        guard context.isFromLoopback else {
            return HTTP.oauthError(
                "access_denied", "admin and inspector pages answer loopback only", rule: .localOnly,
                detail: "peer: expected a loopback address, got \(context.remoteAddress?.ipAddress ?? "unknown")",
                status: .forbidden)
        }
        if let proxied = request.headers.first(where: { field in
            let name = field.name.canonicalName
            return name == "forwarded" || name == "via" || name.hasPrefix("x-forwarded-")
        }) {
            return HTTP.oauthError(
                "access_denied", "admin and inspector pages answer this machine directly, never through a proxy",
                rule: .localOnly,
                detail: "\(proxied.name.rawName): expected no proxy header, got one (the request came through a proxy)",
                status: .forbidden)
        }
        guard let host = request.head.authority?.lowercased(), adminAuthorities.contains(host) else {
            return HTTP.oauthError(
                "access_denied",
                "admin and inspector pages answer requests addressed to this server's loopback address only",
                rule: .localOnly,
                detail:
                    "Host: expected one of \(adminAuthorities.sorted().joined(separator: ", ")), got \(request.head.authority.map { String($0.prefix(100)) } ?? "none")",
                status: .forbidden)
        }
        if let origin = HTTP.header(request, .origin), !adminOrigins.contains(origin.lowercased()) {
            return HTTP.oauthError(
                "access_denied", "admin and inspector pages refuse cross-origin requests", rule: .localOnly,
                detail: "Origin: expected this server's, got \(MaskedText.url(origin))", status: .forbidden)
        }
        if request.headers[values: .secFetchSite].contains(where: { $0 == "cross-site" || $0 == "same-site" }) {
            return HTTP.oauthError(
                "access_denied", "admin and inspector pages refuse cross-origin requests", rule: .localOnly,
                detail:
                    "Sec-Fetch-Site: expected same-origin or none, got \(request.headers[values: .secFetchSite].joined(separator: ", "))",
                status: .forbidden)
        }
        return nil
    }

    /// `Host` values that name this server on this machine: the loopback names at the bound port. Not the
    /// public URL's host, even when it is this machine's: that is the name a proxy forwards.
    var adminAuthorities: Set<String> {
        let port = boundPort
        guard port > 0 else { return [] }
        return ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
    }

    var adminOrigins: Set<String> { Set(adminAuthorities.map { "\(scheme)://\($0)" }) }
}
