import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// The server's metadata (RFC 8414, OpenID Connect Discovery 1.0) and keys, as the checks found them.
package struct DiscoveredServer: Sendable {
    package let document: JSONObject?
    package let tokenEndpoint: URL
    package let authorizationEndpoint: URL
    package let revocationEndpoint: URL?
    package let introspectionEndpoint: URL?
    /// A protected resource that takes the tokens (UserInfo), where `ath` is checked.
    package var userinfoEndpoint: URL? = nil
    /// The members naming an endpoint on another origin than the issuer's: never used, since the checks
    /// would send the client's credentials, the test user's password or tokens there.
    package var offOrigin: [String] = []

    /// Whether `group` needs an endpoint the document puts on another origin (the group is then not run).
    package func blocks(_ group: CheckGroup) -> Bool {
        let needed: Set<String> =
            switch group {
            case .discovery: []
            case .dpop: ["token_endpoint"]
            case .haapi, .hygiene: ["token_endpoint", "authorization_endpoint"]
            }
        return !needed.isDisjoint(with: offOrigin)
    }
}

/// The discovery group: the document is found, names this issuer, keeps its endpoints on the server's
/// origin, advertises DPoP and S256, and publishes a JWKS with public keys only. An endpoint on another
/// origin is reported and never asked: the run sends nothing to a host the user did not name.
package struct DiscoveryChecks {
    package init(server: URL, http: CheckHTTP) {
        self.server = server
        self.http = http
    }

    package let server: URL
    package let http: CheckHTTP

    package func run(_ report: inout [CheckFinding]) async throws -> DiscoveredServer {
        func add(
            _ id: String, _ severity: CheckFinding.Severity, _ title: String, reference: String,
            sent: String? = nil, received: String? = nil, fix: String? = nil
        ) {
            report.append(
                CheckFinding(
                    id: id, group: .discovery, severity: severity, title: title, sent: sent, received: received,
                    reference: reference, fix: fix))
        }
        let issuer =
            server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        var document: JSONObject?
        var found: (request: HTTPRequest, response: HTTPResponse)?
        for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
            guard let url = URL(string: issuer + path) else { continue }
            let request = HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/json")])
            let response = try await http.send(request)
            if response.statusCode == 200,
                let object = try? JSONParser(limits: .init(maxBytes: 512 * 1024, maxDepth: 16)).parse(response.body)
                    .objectValue
            {
                document = object
                found = (request, response)
                break
            }
            found = found ?? (request, response)
        }
        let fallback = DiscoveredServer(
            document: nil, tokenEndpoint: server.appendingPathComponent("oauth/token"),
            authorizationEndpoint: server.appendingPathComponent("oauth/authorize"),
            revocationEndpoint: server.appendingPathComponent("oauth/revoke"), introspectionEndpoint: nil)
        guard let document, let found else {
            add(
                "discovery.missing", .error,
                "No discovery document at /.well-known/openid-configuration or oauth-authorization-server",
                reference: "RFC 8414 §3", sent: found.map { CheckHTTP.line($0.request) },
                received: found.map { CheckHTTP.line($0.response) },
                fix: "publish the server's metadata; clients then need no hard-coded endpoints")
            return fallback
        }
        add(
            "discovery.found", .pass, "The discovery document is published", reference: "RFC 8414 §3",
            sent: CheckHTTP.line(found.request))
        let named = document["issuer"]?.stringValue ?? ""
        if named == issuer || named == issuer + "/" {
            add(
                "discovery.issuer-mismatch", .pass, "issuer is the URL the document was fetched from",
                reference: "RFC 8414 §3.3"
            )
        } else {
            add(
                "discovery.issuer-mismatch", .error, "issuer is \"\(named)\", not \(issuer)",
                reference: "RFC 8414 §3.3",
                sent: CheckHTTP.line(found.request), received: "issuer: \(named)",
                fix: "set the issuer to the exact base URL clients use (scheme, host, port, path)")
        }
        let origin = Self.origin(server)
        func advertised(_ member: String) -> URL? { document[member]?.stringValue.flatMap(URL.init(string:)) }
        let offOrigin = [
            "authorization_endpoint", "token_endpoint", "revocation_endpoint", "introspection_endpoint",
            "userinfo_endpoint", "registration_endpoint", "jwks_uri",
        ]
        .filter { advertised($0).map { Self.origin($0) != origin } ?? false }
        /// An endpoint the checks may use: advertised, and on the issuer's origin.
        func endpoint(_ member: String) -> URL? { offOrigin.contains(member) ? nil : advertised(member) }
        if offOrigin.isEmpty {
            add("discovery.endpoints-off-origin", .pass, "Every endpoint is on \(origin)", reference: "RFC 8414 §2")
        } else {
            add(
                "discovery.endpoints-off-origin", .error,
                "Endpoints on another origin than the issuer's, not used by this run: "
                    + offOrigin.map { "\($0) (\(advertised($0).map(Self.origin) ?? "?"))" }.joined(separator: ", "),
                reference: "RFC 8414 §2",
                fix:
                    "serve the endpoints from the issuer's origin; a client that followed this document would send its credentials and tokens to another host"
            )
        }
        // Served: each endpoint asked the way it is used (GET for authorization and userinfo, an empty POST
        // form for the others): any answer but 404 will do (an error for the missing parameters is expected);
        // a 404, or a connection that fails, is what a client would meet too. The JWKS is fetched below.
        do {
            var missing: [String] = []
            for (member, method) in Self.servedMembers {
                guard let url = endpoint(member) else { continue }
                let request = HTTPRequest(
                    method: method, url: url,
                    headers: [("Accept", "application/json")]
                        + (method == "POST" ? [("Content-Type", MimeTypes.formURLEncoded)] : []),
                    body: method == "POST" ? Data() : nil)
                do {
                    let response = try await http.send(request)
                    if response.statusCode == 404 { missing.append("\(member) (404)") }
                } catch let error as TransportError {
                    missing.append("\(member) (\(error.description))")
                }
            }
            if missing.isEmpty {
                add(
                    "discovery.endpoints-served", .pass, "Every advertised endpoint is served",
                    reference: "RFC 8414 §2")
            } else {
                add(
                    "discovery.endpoint-missing", .error,
                    "Advertised but not served: " + missing.joined(separator: ", "), reference: "RFC 8414 §2",
                    fix: "serve every endpoint the document advertises, or stop advertising it")
            }
        }
        let algorithms = document["dpop_signing_alg_values_supported"]?.arrayValue?.compactMap(\.stringValue)
        switch algorithms {
        case nil:
            add(
                "discovery.dpop-algs", .warning, "dpop_signing_alg_values_supported is not advertised",
                reference: "RFC 9449 §5.1", fix: "advertise the DPoP algorithms the server accepts (ES256 at least)")
        case let values? where values.contains(where: { $0 == "none" || $0.hasPrefix("HS") }):
            add(
                "discovery.dpop-algs", .error,
                "DPoP algorithms include none or HMAC: \(values.joined(separator: " "))",
                reference: "RFC 9449 §4.2", fix: "accept only asymmetric algorithms for DPoP proofs")
        case let values?:
            add(
                "discovery.dpop-algs", .pass, "DPoP algorithms: \(values.joined(separator: " "))",
                reference: "RFC 9449 §5.1")
        }
        let pkce = document["code_challenge_methods_supported"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if pkce.contains("plain") {
            add(
                "oauth.pkce-plain", .warning, "code_challenge_methods_supported lists plain",
                reference: "RFC 9700 §2.1.1", fix: "allow only S256 for PKCE")
        } else if !pkce.contains("S256") {
            add(
                "discovery.pkce-s256", .warning, "code_challenge_methods_supported does not list S256",
                reference: "RFC 8414 §2", fix: "support and advertise PKCE with S256")
        } else {
            add("discovery.pkce-s256", .pass, "PKCE: S256 only", reference: "RFC 9700 §2.1.1")
        }
        if let jwks = endpoint("jwks_uri") {
            let request = HTTPRequest(method: "GET", url: jwks, headers: [("Accept", "application/json")])
            let response = try await http.send(request)
            let keys = (try? JSONParser().parse(response.body))?["keys"]?.arrayValue
            let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "k"]
            if response.statusCode != 200 || keys == nil {
                add(
                    "discovery.jwks-unreachable", .error, "jwks_uri does not answer with a JWKS",
                    reference: "RFC 8414 §2", sent: CheckHTTP.line(request), received: CheckHTTP.line(response),
                    fix: "serve the signing keys at jwks_uri")
            } else if let keys, keys.contains(where: { key in privateMembers.contains { key[$0] != nil } }) {
                add(
                    "discovery.jwks-private", .error, "The JWKS publishes private key members",
                    reference: "RFC 7517 §4, §6.2.2", sent: CheckHTTP.line(request),
                    fix: "publish only the public members of the signing keys; rotate the exposed keys now")
            } else {
                add("discovery.jwks", .pass, "The JWKS has \(keys?.count ?? 0) public keys", reference: "RFC 7517")
            }
        }
        return DiscoveredServer(
            document: document, tokenEndpoint: endpoint("token_endpoint") ?? fallback.tokenEndpoint,
            authorizationEndpoint: endpoint("authorization_endpoint") ?? fallback.authorizationEndpoint,
            revocationEndpoint: endpoint("revocation_endpoint"),
            introspectionEndpoint: endpoint("introspection_endpoint"), userinfoEndpoint: endpoint("userinfo_endpoint"),
            offOrigin: offOrigin)
    }

    /// The endpoints checked for being served, with the method each is used with (those on the issuer's
    /// origin: the check sends no request to other hosts a document names).
    package static let servedMembers = [
        ("authorization_endpoint", "GET"), ("token_endpoint", "POST"), ("revocation_endpoint", "POST"),
        ("introspection_endpoint", "POST"), ("userinfo_endpoint", "GET"),
    ]

    /// `scheme://host[:port]`, lower-cased, the scheme's default port left out (RFC 6454 §4).
    package static func origin(_ url: URL) -> String {
        let scheme = (url.scheme ?? "").lowercased()
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        let port = url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\((url.host ?? "").lowercased())\(port)"
    }
}
