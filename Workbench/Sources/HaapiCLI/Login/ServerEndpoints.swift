import Foundation
@_spi(Tooling) import HaapiSdk

/// A server's endpoints, from its discovery document (`ServerMetadata`, RFC 8414 / OpenID discovery)
/// when it has one, otherwise the conventional `/oauth/...` paths under the base URL.
struct ServerEndpoints {
    let base: URL
    let authorization: URL
    let token: URL
    let revocation: URL?
    let introspection: URL?
    let registration: URL?

    /// A document that names another issuer or malformed endpoints is an error (the server is not the one
    /// asked for); no document at all means the conventional paths.
    static func discover(_ base: URL, transport: any HTTPTransport) async throws(HaapiError) -> ServerEndpoints {
        let fallback = ServerEndpoints(
            base: base, authorization: base.appendingPathComponent("oauth/authorize"),
            token: base.appendingPathComponent("oauth/token"),
            revocation: base.appendingPathComponent("oauth/revoke"),
            introspection: base.appendingPathComponent("oauth/introspect"),
            registration: base.appendingPathComponent("oauth/register"))
        let metadata: ServerMetadata
        do {
            metadata = try await ServerMetadata.fetch(issuer: base, transport: transport)
        } catch {
            if case .invalidConfiguration = error { throw error }
            return fallback
        }
        return ServerEndpoints(
            base: base, authorization: metadata.authorizationEndpoint, token: metadata.tokenEndpoint,
            revocation: metadata.revocationEndpoint ?? fallback.revocation,
            introspection: metadata.introspectionEndpoint ?? fallback.introspection,
            registration: metadata.registrationEndpoint ?? fallback.registration)
    }
}
