/// The endpoints that take a DPoP proof, each with its policy: one table, read by ``DPoPGated/checkProof``.
enum DPoPEndpoint: CaseIterable, Sendable {
    /// `/oauth/token` (every grant) and `/oauth/introspect` (where a public client proves the token's key).
    /// `/oauth/revoke` takes no proof: RFC 9449 defines none for revocation (RFC 7009), and revoking a token
    /// only ends what its holder could do with it.
    case token
    /// `/oauth/token/cat`: the proof names the key the attestation token will be bound to.
    case clientAttestation
    /// The HAAPI endpoints (authorize, authenticators), protected by the HAAPI access token.
    case haapi
    /// `/oauth/register`, protected by a `dcr`-scoped access token.
    case registration
    /// `/oauth/userinfo`, protected by an `openid`-scoped access token.
    case userinfo

    /// How an endpoint refuses a proof (RFC 9449): as the authorization server (§5, §8: `400` with
    /// `invalid_dpop_proof` or `use_dpop_nonce` in the body) or as a protected resource (§7.1, §9: `401`
    /// with `WWW-Authenticate: DPoP error=…`). Both send `DPoP-Nonce` to clients in nonce mode.
    enum RefusalShape: Sendable { case authorizationServer, protectedResource }

    struct Policy: Sendable {
        let shape: RefusalShape
        /// Whether a client configured with `dpopNonce` must put the server's nonce in its proof here.
        let demandsNonce: Bool
        /// Whether the request presents an access token the proof must be bound to (`ath`, `cnf.jkt`).
        let presentsAccessToken: Bool
    }

    var policy: Policy {
        switch self {
        case .token: Policy(shape: .authorizationServer, demandsNonce: true, presentsAccessToken: false)
        // The single-use challenge, not a nonce, makes an attestation fresh; the token endpoint then asks the
        // same key for a nonce.
        case .clientAttestation: Policy(shape: .authorizationServer, demandsNonce: false, presentsAccessToken: false)
        case .haapi: Policy(shape: .protectedResource, demandsNonce: true, presentsAccessToken: true)
        case .registration: Policy(shape: .protectedResource, demandsNonce: true, presentsAccessToken: true)
        case .userinfo: Policy(shape: .protectedResource, demandsNonce: true, presentsAccessToken: true)
        }
    }
}
