import Foundation
@_spi(Tooling) import HaapiModel
import Hummingbird

/// Discovery: the OpenID and OAuth metadata documents, the JWKS and `/health`.
struct DiscoveryRoutes: ServerService {
    let address: ServerAddress
    let configuration: ServerConfiguration
    let keys: ServerKeys
    let clients: ClientRegistry
    let dpop: DPoPVerifier
}

extension DiscoveryRoutes {
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(stringLiteral: Paths.discovery)) { _, _ in HTTP.json(self.discoveryDocument()) }
        router.get(RouterPath(stringLiteral: Paths.authorizationServerMetadata)) { _, _ in
            HTTP.json(self.discoveryDocument())
        }
        router.get(RouterPath(stringLiteral: Paths.jwks)) { _, _ in HTTP.json(self.keys.jwks) }
        // A trivial JSON endpoint: the baseline the benchmark compares the real endpoints with.
        router.get(RouterPath(stringLiteral: Paths.health)) { _, _ in HTTP.json(["status": "ok"]) }
    }

    /// RFC 8414 / OpenID Connect discovery.
    func discoveryDocument() -> JSONValue {
        let scopes = Set(configuration.clients.flatMap(\.scopes)).union([Scopes.haapi]).sorted()
        return [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(url(Paths.authorize)),
            "token_endpoint": .string(url(Paths.token)),
            "revocation_endpoint": .string(url(Paths.revoke)),
            "introspection_endpoint": .string(url(Paths.introspect)),
            "registration_endpoint": .string(url(Paths.register)),
            "userinfo_endpoint": .string(url(Paths.userinfo)),
            "jwks_uri": .string(url(Paths.jwks)),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "token_endpoint_auth_methods_supported": [
                "none", "client_secret_basic", "client_secret_post", "private_key_jwt", "client_secret_jwt",
            ],
            "token_endpoint_auth_signing_alg_values_supported": [
                "ES256", "ES384", "ES512", "RS256", "PS256", "HS256", "HS384", "HS512",
            ],
            "dpop_signing_alg_values_supported": .array(configuration.dpop.algorithms.map(JSONValue.string)),
            "code_challenge_methods_supported": ["S256"],
            "scopes_supported": .array(scopes.map(JSONValue.string)),
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "revocation_endpoint_auth_methods_supported": [
                "none", "client_secret_basic", "client_secret_post", "private_key_jwt", "client_secret_jwt",
            ],
            "introspection_endpoint_auth_methods_supported": [
                "none", "client_secret_basic", "client_secret_post", "private_key_jwt", "client_secret_jwt",
            ],
        ]
    }
}
