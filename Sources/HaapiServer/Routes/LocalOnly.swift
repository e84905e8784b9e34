import Foundation
import HTTPTypes
import Hummingbird

/// Services whose pages answer only this machine (the admin endpoints and the inspector).
///
/// The peer address alone is not enough: a web page in the developer's browser can reach loopback too, by a
/// cross-site form or by DNS rebinding (a name of the attacker's that resolves to 127.0.0.1). So a request
/// must also name this server in `Host`, and must not carry a foreign `Origin`: curl and `haapi approve`
/// send neither problem, a browser on another site always does.
protocol LocalOnly: PublicAddressing {}

extension LocalOnly {
    /// Why a request for a local-only page is refused, or nil when it comes from this machine: a loopback
    /// peer, naming this server in `Host`, with no foreign `Origin` or cross-site fetch.
    func localRefusal(_ request: Request, _ context: ServerRequestContext) -> Response? {
        guard context.isFromLoopback else {
            return HTTP.oauthError(
                "access_denied", "admin and inspector pages answer loopback only", rule: .localOnly,
                detail: "peer: expected a loopback address, got \(context.remoteAddress?.ipAddress ?? "unknown")",
                status: .forbidden)
        }
        guard let host = request.head.authority?.lowercased(), adminAuthorities.contains(host) else {
            return HTTP.oauthError(
                "access_denied", "admin and inspector pages answer requests addressed to this server's own host only",
                rule: .localOnly,
                detail:
                    "Host: expected one of \(adminAuthorities.sorted().joined(separator: ", ")), got \(request.head.authority.map { String($0.prefix(100)) } ?? "none")",
                status: .forbidden)
        }
        if let origin = HTTP.header(request, .origin), !adminOrigins.contains(origin.lowercased()) {
            return HTTP.oauthError(
                "access_denied", "admin and inspector pages refuse cross-origin requests", rule: .localOnly,
                detail: "Origin: expected this server's, got \(LogMasking.url(origin))", status: .forbidden)
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

    /// `Host` values that name this server: the issuer's authority, and the loopback names at the bound port.
    var adminAuthorities: Set<String> {
        var names: Set<String> = []
        if let issuer = URLComponents(string: issuer), let host = issuer.host?.lowercased() {
            let bracketed = host.contains(":") ? "[\(host)]" : host
            names.insert(issuer.port.map { "\(bracketed):\($0)" } ?? bracketed)
        }
        let port = boundPort
        if port > 0 { names.formUnion(["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]) }
        return names
    }

    var adminOrigins: Set<String> {
        Set(adminAuthorities.map { "\(scheme)://\($0)" }).union([issuer.lowercased()])
    }
}
