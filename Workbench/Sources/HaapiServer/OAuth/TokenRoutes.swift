import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiDriver
import HaapiRules
import Hummingbird
import Logging

/// The token endpoint (HAAPI tokens from attestation, client credentials, codes, refreshes), revocation and
/// introspection. It owns the single-use record of client attestation tokens.
///
/// A class, not a struct like the other services: a struct is copied into each request handler's async frame,
/// retaining and releasing its thirty-odd references on objects both event loops share; a class is one retain.
final class TokenRoutes: ServerService, FormReading, DPoPGated, AccessTokenReading {
    let address: ServerAddress
    let configuration: ServerConfiguration
    let store: ServerStore
    let keys: ServerKeys
    let clients: ClientRegistry
    let clientAuthenticator: ClientAuthenticator
    let dpop: DPoPVerifier
    let nonces: DPoPNonceService
    let accessTokens: SealedAccessTokens
    let clock: @Sendable () -> Date
    /// Attestation tokens (CATs) already redeemed.
    let singleUse = SingleUseCache(capacity: SingleUseCache.singleUseCapacity)

    init(
        address: ServerAddress, configuration: ServerConfiguration, store: ServerStore, keys: ServerKeys,
        clients: ClientRegistry, clientAuthenticator: ClientAuthenticator, dpop: DPoPVerifier,
        nonces: DPoPNonceService, accessTokens: SealedAccessTokens, clock: @escaping @Sendable () -> Date
    ) {
        self.address = address
        self.configuration = configuration
        self.store = store
        self.keys = keys
        self.clients = clients
        self.clientAuthenticator = clientAuthenticator
        self.dpop = dpop
        self.nonces = nonces
        self.accessTokens = accessTokens
        self.clock = clock
    }
}

extension TokenRoutes {
    static let haapiTokenType = "at+jwt"

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.post(RouterPath(stringLiteral: Paths.token)) { request, _ in try await self.token(request) }
        router.post(RouterPath(stringLiteral: Paths.revoke)) { request, _ in try await self.revocation(request) }
        router.post(RouterPath(stringLiteral: Paths.introspect)) { request, _ in try await self.introspection(request) }
    }

    var assertionAudiences: Set<String> { [url(Paths.token), issuer, url(Paths.revoke), url(Paths.introspect)] }

    func token(_ incoming: Request) async throws(Rejection) -> Response {
        var request = incoming
        let form: [String: String] = try await readForm(&request)
        switch form["grant_type"] {
        case "client_credentials"?:
            if form["client_assertion_type"] == AssertionTypes.attestation {
                return try await haapiTokenFromAttestation(request, form)
            }
            return try await clientCredentials(request, form)
        case "authorization_code"?: return try await authorizationCode(request, form)
        case "refresh_token"?: return try await refresh(request, form)
        case nil:
            return HTTP.oauthError(
                "invalid_request", "grant_type is required", rule: .invalidRequest,
                detail: "grant_type: expected authorization_code, refresh_token or client_credentials, got none")
        case let other?:
            return HTTP.oauthError(
                "unsupported_grant_type", "grant_type \(other) is not supported", rule: .grantUnsupported,
                detail:
                    "grant_type: expected authorization_code, refresh_token or client_credentials, got \(other.prefix(60))"
            )
        }
    }

    /// The form of a token, revocation or introspection request and the client it authenticates.
    func authenticatedForm(
        _ incoming: Request
    ) async throws(Rejection) -> (request: Request, form: [String: String], client: ResolvedClient) {
        var request = incoming
        let form = try await readForm(&request)
        return (request, form, try await authenticateClient(request, form))
    }

    func authenticateClient(_ request: Request, _ form: [String: String]) async throws(Rejection) -> ResolvedClient {
        do throws(ClientAuthenticationFailure) {
            return try await clientAuthenticator.authenticate(
                authorization: HTTP.header(request, .authorization), form: form, audiences: { assertionAudiences },
                now: clock())
        } catch {
            if let failure = error.storeFailure { throw failure }
            var headers: HTTPFields = [:]
            if HTTP.header(request, .authorization)?.lowercased().hasPrefix("basic ") == true {
                headers[.wwwAuthenticate] = "Basic realm=\"token\""
            }
            throw Rejection(
                HTTP.oauthError(
                    "invalid_client", error.description, rule: error.rule, detail: error.detail,
                    status: .unauthorized, headers: headers))
        }
    }

    /// Checks the DPoP proof of a token request through the gate. `required` or a `boundJKT` make a missing
    /// proof an error.
    func tokenRequestProof(
        _ request: Request, client: ResolvedClient, boundJKT: String?, required: Bool,
        bindingFailure: String = "the DPoP key does not match the token binding"
    ) async throws(Rejection) -> DPoPProof? {
        try await checkProof(
            request, at: .token, client: client, boundJKT: boundJKT, required: required,
            bindingFailure: bindingFailure)
    }

    // MARK: Grants

    private func haapiTokenFromAttestation(
        _ request: Request, _ form: [String: String]
    ) async throws(Rejection) -> Response {
        let now = clock()
        guard let cat = form["client_assertion"],
            let claims = keys.verify(cat, type: AttestationRoutes.catType, now: now),
            claims["purpose"]?.stringValue == "cat", claims["aud"]?.stringValue == url(Paths.token),
            let clientID = claims["sub"]?.stringValue, let client = try await clients.client(id: clientID),
            let jti = claims["jti"]?.stringValue
        else {
            return HTTP.oauthError(
                "invalid_client", "invalid or expired client attestation token", rule: .attestationTokenInvalid,
                detail: form["client_assertion"].map {
                    "client_assertion \(MaskedText.token($0)): not a current CAT of this server for a known client"
                }
                    ?? "client_assertion: expected a CAT, got none",
                status: .unauthorized)
        }
        RequestTrace.client(clientID)
        if let formID = form["client_id"], formID != clientID {
            return HTTP.oauthError(
                "invalid_client", "client_id does not match the attestation", rule: .attestationTokenInvalid,
                detail: "client_id: expected \(clientID) (the CAT's), got \(formID.prefix(100))", status: .unauthorized)
        }
        if let scope = form["scope"], scope.split(separator: " ").map(String.init) != [Scopes.haapi] {
            return HTTP.oauthError(
                "invalid_scope", "an attested client may only ask for \(Scopes.haapi)", rule: .scope,
                detail: "scope: expected \(Scopes.haapi), got \(scope.prefix(200))")
        }
        let attestedJKT = claims["cnf"]?["jkt"]?.stringValue
        let proof: DPoPProof? = try await tokenRequestProof(
            request, client: client, boundJKT: attestedJKT, required: true,
            bindingFailure: "the DPoP key differs from the attested key")
        guard let jkt = proof?.thumbprint,
            await singleUse.register(
                jti: jti, jkt: "cat",
                until: now.addingTimeInterval(TimeInterval(configuration.lifetimes.clientAttestationToken) + 60),
                now: now)
        else {
            return HTTP.oauthError(
                "invalid_client", "the client attestation token was already used", rule: .attestationTokenInvalid,
                detail: "client_assertion: this CAT was redeemed before", status: .unauthorized)
        }
        var attestation = claims["data"]?.objectValue ?? JSONObject()
        attestation["type"] = claims["type"] ?? "disabled"
        return await haapiAccessTokenResponse(client: client, jkt: jkt, attestation: attestation, now: now)
    }

    /// A HAAPI access token: a JWT with `cnf.jkt`, also stored (hashed) so it can be revoked and introspected.
    /// Its claims follow the vendor's HAAPI token (seed 003): `aud` names the endpoints it is for,
    /// `attestation` what the CAT verified (absent for a client that authenticated itself instead), `cal`
    /// how the client was authenticated, `cap` the attestation policy, and `dpl` the device protection level,
    /// which the dev server does not grade (always 0).
    private func haapiAccessTokenResponse(
        client: ResolvedClient, jkt: String, attestation: JSONObject?, now: Date
    ) async -> Response {
        let lifetime = configuration.lifetimes.haapiAccessToken
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": .string(client.id),
            "aud": [.string(url(Paths.authorize)), .string(url(Paths.authenticate))], "purpose": "haapi",
            "scope": .string(Scopes.haapi), "cnf": ["jkt": .string(jkt)], "dpl": 0,
            "cal": attestation == nil ? "client-authentication" : "by-policy",
            "iat": .number(JSONNumber(Int(now.timeIntervalSince1970))),
            "exp": .number(JSONNumber(Int(now.timeIntervalSince1970) + lifetime)),
            "jti": .string(SecureRandom.token(byteCount: 16)),
        ]
        if let attestation {
            claims["attestation"] = .object(attestation)
            claims["cap"] = .string((client.configuration.attestation?.rawValue ?? "disabled") + "-dev-policy")
        }
        do {
            let token = try keys.sign(claims: claims, type: Self.haapiTokenType)
            try await store.storeAccessToken(
                token,
                AccessTokenRecord(
                    familyID: nil, clientID: client.id, username: nil, scope: Scopes.haapi, jkt: jkt, issuedAt: now,
                    expiresAt: now.addingTimeInterval(TimeInterval(lifetime)), revoked: false))
            return HTTP.json(
                [
                    "access_token": .string(token), "token_type": "DPoP", "expires_in": .number(JSONNumber(lifetime)),
                    "scope": .string(Scopes.haapi),
                ], headers: await nonceHeaders(for: client))
        } catch {
            return HTTP.oauthError(
                "server_error", "could not issue the token", rule: .storeFailure, status: .internalServerError)
        }
    }

    private func clientCredentials(_ request: Request, _ form: [String: String]) async throws(Rejection) -> Response {
        let client: ResolvedClient = try await authenticateClient(request, form)
        guard client.configuration.isConfidential else {
            return HTTP.oauthError(
                "unauthorized_client", "a public client cannot use client_credentials", rule: .grantNotAllowed,
                detail: "client_credentials: \(client.id) is a public client")
        }
        let requested = form["scope"].map { $0.split(separator: " ").map(String.init) } ?? client.configuration.scopes
        let wantsHaapi = requested.contains(Scopes.haapi)
        if wantsHaapi, requested.count > 1 {
            return HTTP.oauthError(
                "invalid_scope", "\(Scopes.haapi) must be requested alone", rule: .scope,
                detail: "scope: expected \(Scopes.haapi) alone, got \(requested.joined(separator: " ").prefix(200))")
        }
        if wantsHaapi, !client.configuration.allowWithoutAttestation {
            return HTTP.oauthError(
                "unauthorized_client", "this client must use attestation to obtain a HAAPI token",
                rule: .grantNotAllowed,
                detail: "\(client.id) obtains HAAPI tokens through attestation only (allowWithoutAttestation is off)")
        }
        if !wantsHaapi, let unknown = requested.first(where: { !client.configuration.scopes.contains($0) }) {
            return HTTP.oauthError(
                "invalid_scope", "scope \(unknown) is not allowed for this client", rule: .scope,
                detail:
                    "scope: \(unknown.prefix(100)) is not allowed for \(client.id) (allowed: \(client.configuration.scopes.joined(separator: " ")))"
            )
        }
        let proof: DPoPProof? = try await tokenRequestProof(
            request, client: client, boundJKT: nil, required: wantsHaapi)
        let now = clock()
        if wantsHaapi, let jkt = proof?.thumbprint {
            return await haapiAccessTokenResponse(client: client, jkt: jkt, attestation: nil, now: now)
        }
        return await tokenResponse(
            client: client, username: nil, scope: requested, jkt: proof?.thumbprint, refresh: .none, now: now)
    }

    private func authorizationCode(_ request: Request, _ form: [String: String]) async throws(Rejection) -> Response {
        let client: ResolvedClient = try await authenticateClient(request, form)
        let now = clock()
        guard let code = form["code"],
            let peeked = try await Rejection.unlessStoreFails({ try await store.peekCode(code) })
        else {
            return HTTP.oauthError(
                "invalid_grant", "unknown authorization code", rule: .codeUnknown,
                detail: form["code"].map { "code \(MaskedText.token($0)): not issued by this server" }
                    ?? "code: none sent")
        }
        let (record, used) = peeked
        guard !used else {
            // Revokes what the first redemption issued.
            _ = try await Rejection.unlessStoreFails { try await store.redeemCode(code, family: "") }
            return HTTP.oauthError(
                "invalid_grant", "the authorization code was already used; the tokens issued for it are revoked",
                rule: .codeReused, detail: "code \(MaskedText.token(code)): redeemed before; its tokens are now revoked"
            )
        }
        guard record.clientID == client.id else {
            return HTTP.oauthError(
                "invalid_grant", "the code was issued to another client", rule: .codeUnknown,
                detail: "code: issued to \(record.clientID), redeemed by \(client.id)")
        }
        guard record.expiresAt > now else {
            return HTTP.oauthError(
                "invalid_grant", "the authorization code has expired", rule: .codeExpired,
                detail: "code: expired \(Int(now.timeIntervalSince(record.expiresAt).rounded())) s ago")
        }
        guard form["redirect_uri"] == record.redirectURI else {
            return HTTP.oauthError(
                "invalid_grant", "redirect_uri does not match", rule: .redirectURI,
                detail:
                    "redirect_uri: expected \(record.redirectURI) (the authorization request's), got \(form["redirect_uri"].map(MaskedText.url) ?? "none")"
            )
        }
        if let challenge = record.codeChallenge {
            guard let verifier = form["code_verifier"] else {
                return HTTP.oauthError(
                    "invalid_grant", "code_verifier is required for this code", rule: .pkceMissing,
                    detail: "code_verifier: expected the verifier of the code's S256 challenge, got none")
            }
            guard PKCE.isValidVerifier(verifier), ConstantTime.equals(PKCE.challenge(for: verifier), challenge) else {
                return HTTP.oauthError(
                    "invalid_grant", "PKCE verification failed", rule: .pkceMismatch,
                    detail: PKCE.isValidVerifier(verifier)
                        ? "code_verifier: its SHA-256 is not the code's challenge"
                        : "code_verifier: expected 43–128 unreserved characters, got \(verifier.count)")
            }
        } else if form["code_verifier"] != nil {
            // A verifier for a code issued without a challenge: a downgrade or a mix-up (RFC 9700 §2.1.1).
            return HTTP.oauthError(
                "invalid_grant", "the code was issued without code_challenge; code_verifier is not expected",
                rule: .pkceMismatch, detail: "code_verifier: sent for a code issued without code_challenge")
        }
        let proof: DPoPProof? = try await tokenRequestProof(
            request, client: client, boundJKT: record.jkt, required: false,
            bindingFailure: "the DPoP key differs from the key the code is bound to")
        let family = SecureRandom.token(byteCount: 16)
        guard case .fresh = try await Rejection.unlessStoreFails({ try await store.redeemCode(code, family: family) })
        else {
            return HTTP.oauthError(
                "invalid_grant", "the authorization code was already used; the tokens issued for it are revoked",
                rule: .codeReused, detail: "code \(MaskedText.token(code)): redeemed by a request at the same time")
        }
        return await tokenResponse(
            client: client, username: record.username, scope: record.scope.split(separator: " ").map(String.init),
            jkt: proof?.thumbprint, refresh: .newFamily(family), idToken: (record.nonce, record.authTime), now: now)
    }

    private func refresh(_ request: Request, _ form: [String: String]) async throws(Rejection) -> Response {
        let client: ResolvedClient = try await authenticateClient(request, form)
        guard let token = form["refresh_token"],
            let record = try await Rejection.unlessStoreFails({ try await store.refreshToken(token) }),
            record.clientID == client.id
        else {
            return HTTP.oauthError(
                "invalid_grant", "unknown refresh token", rule: .refreshUnknown,
                detail: form["refresh_token"].map {
                    "refresh_token \(MaskedText.token($0)): not issued to \(client.id)"
                }
                    ?? "refresh_token: none sent")
        }
        _ = try await tokenRequestProof(
            request, client: client, boundJKT: record.jkt, required: false,
            bindingFailure: "the DPoP key differs from the key the refresh token is bound to")
        let now = clock()
        if client.configuration.reuseRefreshTokens {
            // The same refresh token again, while it lives: no rotation, so no reuse detection either.
            guard record.status == .active, record.expiresAt > now else {
                return HTTP.oauthError(
                    "invalid_grant", "the refresh token is revoked or expired", rule: .refreshRevoked,
                    detail:
                        "refresh_token \(MaskedText.token(token)): \(record.status == .active ? "expired" : "revoked")")
            }
            return await tokenResponse(
                client: client, username: record.username, scope: record.scope.split(separator: " ").map(String.init),
                jkt: record.jkt, refresh: .rotated(token, family: record.familyID), now: now)
        }
        let replacement = SecureRandom.token(byteCount: 32)
        let expiry = now.addingTimeInterval(
            TimeInterval(client.configuration.refreshTokenLifetime ?? configuration.lifetimes.refreshToken))
        let rotation: ServerStore.Rotation
        do {
            rotation = try await store.rotateRefreshToken(
                token, replacement: replacement, expiresAt: expiry,
                reuseGrace: TimeInterval(configuration.lifetimes.refreshTokenReuseGrace), now: now)
        } catch {
            Logger(label: "haapi.devserver").error("a refresh token could not be rotated: \(error)")
            return HTTP.oauthError(
                "server_error", "could not rotate the refresh token", rule: .storeFailure, status: .internalServerError)
        }
        switch rotation {
        case .unknown:
            return HTTP.oauthError(
                "invalid_grant", "unknown refresh token", rule: .refreshUnknown,
                detail: "refresh_token \(MaskedText.token(token)): gone while it was being rotated")
        case .inactive:
            return HTTP.oauthError(
                "invalid_grant", "the refresh token is revoked or expired", rule: .refreshRevoked,
                detail: "refresh_token \(MaskedText.token(token)): revoked or expired")
        case .reused:
            return HTTP.oauthError(
                "invalid_grant", "refresh token reuse detected; the whole token family is revoked",
                rule: .refreshReused,
                detail: "refresh_token \(MaskedText.token(token)): rotated before; its family is now revoked")
        case .rotated(let old):
            return await tokenResponse(
                client: client, username: old.username, scope: old.scope.split(separator: " ").map(String.init),
                jkt: old.jkt,
                refresh: .rotated(replacement, family: old.familyID), now: now)
        }
    }

    enum RefreshIssue {
        case none
        case newFamily(String)
        case rotated(String, family: String)
    }

    /// Issues an access token (bound to `jkt` when given), a refresh token and, for `openid`, an ID token.
    func tokenResponse(
        client: ResolvedClient, username: String?, scope: [String], jkt: String?, refresh: RefreshIssue,
        idToken: (nonce: String?, authTime: Date)? = nil, now: Date
    ) async -> Response {
        let accessLifetime = client.configuration.accessTokenLifetime ?? configuration.lifetimes.accessToken
        let refreshLifetime = client.configuration.refreshTokenLifetime ?? configuration.lifetimes.refreshToken
        var body: JSONObject = [
            "token_type": .string(jkt == nil ? "Bearer" : "DPoP"),
            "expires_in": .number(JSONNumber(accessLifetime)), "scope": .string(scope.joined(separator: " ")),
        ]
        do {
            var familyID: String?
            switch refresh {
            case .none:
                break
            case .newFamily(let family):
                let token = SecureRandom.token(byteCount: 32)
                try await store.storeRefreshToken(
                    token,
                    RefreshTokenRecord(
                        familyID: family, clientID: client.id, username: username, scope: scope.joined(separator: " "),
                        jkt: jkt,
                        expiresAt: now.addingTimeInterval(TimeInterval(refreshLifetime)), status: .active), now: now)
                familyID = family
                body["refresh_token"] = .string(token)
            case .rotated(let token, let family):
                familyID = family
                body["refresh_token"] = .string(token)
            }
            // Sealed, not stored: issuing an access token writes nothing (SealedAccessTokens).
            body["access_token"] = .string(
                accessTokens.seal(
                    AccessTokenRecord(
                        familyID: familyID, clientID: client.id, username: username,
                        scope: scope.joined(separator: " "), jkt: jkt,
                        issuedAt: now, expiresAt: now.addingTimeInterval(TimeInterval(accessLifetime)), revoked: false),
                    jti: SecureRandom.token(byteCount: 16)))
            if let idToken, let username, scope.contains("openid") {
                body["id_token"] = .string(
                    try await makeIDToken(
                        client: client, username: username, scope: scope, nonce: idToken.nonce,
                        authTime: idToken.authTime, now: now))
            }
        } catch {
            Logger(label: "haapi.devserver").error("tokens could not be issued: \(error)")
            return HTTP.oauthError(
                "server_error", "could not issue tokens", rule: .storeFailure, status: .internalServerError)
        }
        return HTTP.json(.object(body), headers: await nonceHeaders(for: client))
    }

    private func makeIDToken(
        client: ResolvedClient, username: String, scope: [String], nonce: String?, authTime: Date, now: Date
    ) async throws -> String {
        var claims: JSONObject = [
            "iss": .string(issuer), "sub": .string(username), "aud": .string(client.id),
            "iat": .number(JSONNumber(Int(now.timeIntervalSince1970))),
            "exp": .number(JSONNumber(Int(now.timeIntervalSince1970) + configuration.lifetimes.idToken)),
            "auth_time": .number(JSONNumber(Int(authTime.timeIntervalSince1970))),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let user = try await store.user(named: username) {
            if scope.contains("profile"), let name = user.name { claims["name"] = .string(name) }
            if scope.contains("profile") { claims["preferred_username"] = .string(username) }
            if scope.contains("email"), let email = user.email { claims["email"] = .string(email) }
        }
        return try keys.sign(claims: claims)
    }

    // MARK: Revocation (RFC 7009) and introspection (RFC 7662)

    func revocation(_ incoming: Request) async throws(Rejection) -> Response {
        let (_, form, client) = try await authenticatedForm(incoming)
        guard let token = form["token"], !token.isEmpty else {
            return HTTP.oauthError(
                "invalid_request", "token is required", rule: .invalidRequest, detail: "token: expected one, got none")
        }
        // Unknown tokens and tokens of other clients get the same answer: nothing to learn from it.
        if let (record, jti) = accessTokens.open(token) {
            if record.clientID == client.id {
                try await Rejection.unlessStoreFails {
                    try await store.revokeSealedToken(jti: jti, expiresAt: record.expiresAt)
                }
            }
        } else {
            _ = try await Rejection.unlessStoreFails { try await store.revoke(token, clientID: client.id) }
        }
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }

    /// RFC 7662 introspection. The caller must authenticate: a confidential client with its credentials
    /// (it may introspect any token), a public client, having none, with a DPoP proof of the key the token is
    /// bound to (it may introspect only its own bound tokens). Tokens of a revoked family stay inactive.
    func introspection(_ incoming: Request) async throws(Rejection) -> Response {
        let (request, form, caller) = try await authenticatedForm(incoming)
        guard let token = form["token"], !token.isEmpty else {
            return HTTP.oauthError(
                "invalid_request", "token is required", rule: .invalidRequest, detail: "token: expected one, got none")
        }
        var proofKey: String?
        if !caller.configuration.isConfidential {
            guard !HTTP.headerValues(request, .dpop).isEmpty else {
                return HTTP.oauthError(
                    "invalid_client",
                    "introspection requires client authentication: a public client sends a DPoP proof of the token's key",
                    rule: .clientAuthentication,
                    detail: "DPoP: a public client's introspection needs a proof, got none",
                    status: .unauthorized)
            }
            proofKey = try await tokenRequestProof(request, client: caller, boundJKT: nil, required: true)?.thumbprint
        }
        let now = clock()
        let inactive: JSONValue = ["active": false]
        /// A public caller sees only its own tokens, bound to the key it just proved.
        func visible(clientID: String, jkt: String?) -> Bool {
            caller.configuration.isConfidential || (caller.id == clientID && jkt != nil && jkt == proofKey)
        }
        var body: JSONObject
        if let record = try await accessTokenRecord(token) {
            var familyRevoked = false
            if let family = record.familyID {
                familyRevoked = try await Rejection.unlessStoreFails { try await store.isFamilyRevoked(family) }
            }
            guard !record.revoked, !familyRevoked, record.expiresAt > now,
                visible(clientID: record.clientID, jkt: record.jkt)
            else {
                return HTTP.json(inactive)
            }
            body = [
                "active": true, "client_id": .string(record.clientID), "scope": .string(record.scope),
                "token_type": .string(record.jkt == nil ? "Bearer" : "DPoP"),
                "iat": .number(JSONNumber(Int(record.issuedAt.timeIntervalSince1970))),
                "exp": .number(JSONNumber(Int(record.expiresAt.timeIntervalSince1970))),
            ]
            if let username = record.username {
                body["sub"] = .string(username)
                body["username"] = .string(username)
            }
            if let jkt = record.jkt { body["cnf"] = ["jkt": .string(jkt)] }
        } else if let record = try await Rejection.unlessStoreFails({ try await store.refreshToken(token) }) {
            guard record.status == .active, record.expiresAt > now, visible(clientID: record.clientID, jkt: record.jkt)
            else {
                return HTTP.json(inactive)
            }
            body = [
                "active": true, "client_id": .string(record.clientID), "scope": .string(record.scope),
                "token_type": "refresh_token",
                "exp": .number(JSONNumber(Int(record.expiresAt.timeIntervalSince1970))),
            ]
            if let username = record.username {
                body["sub"] = .string(username)
                body["username"] = .string(username)
            }
            if let jkt = record.jkt { body["cnf"] = ["jkt": .string(jkt)] }
        } else {
            return HTTP.json(inactive)
        }
        body["iss"] = .string(issuer)
        return HTTP.json(.object(body))
    }
}
