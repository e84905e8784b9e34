import Foundation
import HaapiSdk

/// A server's endpoints, from its discovery document when it has one (RFC 8414 / OpenID discovery),
/// otherwise the conventional `/oauth/...` paths under the base URL.
struct ServerEndpoints {
    let base: URL
    let authorization: URL
    let token: URL
    let revocation: URL?
    let introspection: URL?
    let registration: URL?

    static func discover(_ base: URL, transport: any HttpTransport) async -> ServerEndpoints {
        let fallback = ServerEndpoints(
            base: base, authorization: base.appendingPathComponent("oauth/authorize"), token: base.appendingPathComponent("oauth/token"),
            revocation: base.appendingPathComponent("oauth/revoke"), introspection: base.appendingPathComponent("oauth/introspect"),
            registration: base.appendingPathComponent("oauth/register"))
        let wellKnown = base.appendingPathComponent(".well-known/openid-configuration")
        guard let response = try? await transport.send(HttpRequest(method: "GET", url: wellKnown, headers: [("Accept", "application/json")], timeout: 10)),
            response.statusCode == 200, let document = try? response.oauthObject()
        else { return fallback }
        func url(_ name: String) -> URL? { document[name]?.stringValue.flatMap(URL.init(string:)) }
        return ServerEndpoints(
            base: base, authorization: url("authorization_endpoint") ?? fallback.authorization, token: url("token_endpoint") ?? fallback.token,
            revocation: url("revocation_endpoint") ?? fallback.revocation, introspection: url("introspection_endpoint") ?? fallback.introspection,
            registration: url("registration_endpoint") ?? fallback.registration)
    }
}
