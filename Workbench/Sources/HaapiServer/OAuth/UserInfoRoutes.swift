import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRules
import Hummingbird

/// The OpenID Connect UserInfo endpoint (OIDC Core §5.3), a protected resource in RFC 9449's sense: a
/// DPoP-bound access token is accepted only with the `DPoP` scheme and a proof of its key for this request
/// (§7.1); a token without a binding with the `Bearer` scheme (RFC 6750). Either must carry `openid`.
struct UserInfoRoutes: ServerService, DPoPGated, AccessTokenReading {
    let address: ServerAddress
    let store: ServerStore
    let clients: ClientRegistry
    let dpop: DPoPVerifier
    let nonces: DPoPNonceService
    let accessTokens: SealedAccessTokens
    let clock: @Sendable () -> Date
}

extension UserInfoRoutes {
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(stringLiteral: Paths.userinfo)) { request, _ in try await self.userInfo(request) }
        router.post(RouterPath(stringLiteral: Paths.userinfo)) { request, _ in try await self.userInfo(request) }
    }

    /// The signed-in user's claims: `sub`, and what the token's scopes grant of `preferred_username`, `name`
    /// (`profile`) and `email` (`email`).
    func userInfo(_ request: Request) async throws(Rejection) -> Response {
        guard let authorization = HTTP.header(request, .authorization), let space = authorization.firstIndex(of: " ")
        else {
            return resourceChallenge(
                "invalid_token", "an access token is required (DPoP or Bearer scheme)", rule: .accessTokenInvalid,
                detail: "Authorization: expected DPoP or Bearer and a token, got none")
        }
        let scheme = authorization[..<space].lowercased()
        let token = String(HTTP.trimmingOWS(authorization[authorization.index(after: space)...]))
        guard scheme == "dpop" || scheme == "bearer", let record = try await accessTokenRecord(token), !record.revoked,
            record.expiresAt > clock()
        else {
            return resourceChallenge(
                "invalid_token", "the access token is invalid, expired or revoked", rule: .accessTokenInvalid,
                detail:
                    "token \(MaskedText.token(token)) with the \(scheme.prefix(20)) scheme: unknown, expired or revoked"
            )
        }
        guard record.scope.split(separator: " ").contains("openid"), let username = record.username else {
            return resourceChallenge(
                "insufficient_scope", "the access token does not carry the openid scope of a signed-in user",
                rule: .insufficientScope, detail: "scope: expected openid, got \(record.scope.prefix(200))")
        }
        let client = try await clients.client(id: record.clientID)
        if let jkt = record.jkt {
            // RFC 9449 §7.2: a bound token presented as a bearer token is refused, never accepted without its proof.
            guard scheme == "dpop" else {
                return resourceChallenge(
                    "invalid_token", "a DPoP-bound token must be sent with the DPoP scheme", rule: .tokenScheme,
                    detail: "Authorization: expected DPoP for a bound token, got \(scheme)")
            }
            do throws(Rejection) {
                _ = try await checkProof(
                    request, at: .userinfo, client: client, accessToken: token, boundJKT: jkt, required: true)
            } catch {
                return error.response
            }
        } else if scheme == "dpop" {
            return resourceChallenge(
                "invalid_token", "the access token is not DPoP-bound; use the Bearer scheme", rule: .tokenScheme,
                detail: "Authorization: expected Bearer for an unbound token, got DPoP")
        }
        // The claims the token's scopes grant (OIDC Core §5.4): `sub` always, the names with `profile`, the
        // address with `email`.
        let scopes = Set(record.scope.split(separator: " ").map(String.init))
        var claims: [(String, JSONValue)] = [("sub", .string(username))]
        var user: StoredUser?
        if !scopes.isDisjoint(with: ["profile", "email"]) {
            user = try await Rejection.unlessStoreFails { try await store.user(named: username) }
        }
        if scopes.contains("profile") {
            claims.append(("preferred_username", .string(username)))
            if let name = user?.name { claims.append(("name", .string(name))) }
        }
        if scopes.contains("email"), let email = user?.email { claims.append(("email", .string(email))) }
        return HTTP.json(.object(JSONObject(claims)), headers: await nonceHeaders(for: client))
    }
}
