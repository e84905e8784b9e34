import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import Testing

@testable import HaapiServer

@Suite("Token endpoint, revocation, introspection (item 3)")
struct TokenEndpointTests {
    static func tokenURL(_ server: TestServer) -> String { server.base + "/oauth/token" }

    static func assertion(
        clientID: String, audience: String, signer: any JWSSigner, jti: String = SecureRandom.token(),
        expiresIn: Int = 60
    ) throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        return try JWS.sign(
            claims: [
                "iss": .string(clientID), "sub": .string(clientID), "aud": .string(audience), "jti": .string(jti),
                "exp": .number(JSONNumber(now + expiresIn)), "iat": .number(JSONNumber(now)),
            ], signer: signer)
    }

    @Test("client_credentials with client_secret_basic and client_secret_post; wrong secrets are invalid_client")
    func clientSecrets() async throws {
        let server = try await TestServer.shared.get()
        let basic = try await RawHTTP.form(
            Self.tokenURL(server), [("grant_type", "client_credentials"), ("scope", "api")],
            headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(
            basic.status == 200 && basic.json["token_type"] == "Bearer" && basic.json["scope"] == "api", "\(basic.text)"
        )
        #expect(basic.json["refresh_token"] == nil)
        let wrong = try await RawHTTP.form(
            Self.tokenURL(server), [("grant_type", "client_credentials")],
            headers: [RawHTTP.basic("secret-basic", "nope")])
        #expect(
            wrong.status == 401 && wrong.json["error"] == "invalid_client"
                && wrong.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
        let post = try await RawHTTP.form(
            Self.tokenURL(server),
            [("grant_type", "client_credentials"), ("client_id", "secret-post"), ("client_secret", "post-secret")])
        #expect(post.status == 200, "\(post.text)")
        #expect(post.json["expires_in"] == 42, "a client's own lifetime overrides the server-wide one")
        #expect(basic.json["expires_in"] == 300)
        let postWrong = try await RawHTTP.form(
            Self.tokenURL(server),
            [("grant_type", "client_credentials"), ("client_id", "secret-post"), ("client_secret", "x")])
        #expect(postWrong.status == 401 && postWrong.json["error"] == "invalid_client")
        let scope = try await RawHTTP.form(
            Self.tokenURL(server), [("grant_type", "client_credentials"), ("scope", "admin")],
            headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(scope.status == 400 && scope.json["error"] == "invalid_scope")
        let haapi = try await RawHTTP.form(
            Self.tokenURL(server), [("grant_type", "client_credentials"), ("scope", "urn:se:curity:scopes:haapi")],
            headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(haapi.json["error"] == "unauthorized_client")
        let publicClient = try await RawHTTP.form(
            Self.tokenURL(server), [("grant_type", "client_credentials"), ("client_id", "haapi-demo")])
        #expect(publicClient.status == 400 && publicClient.json["error"] == "unauthorized_client")
    }

    @Test("a form body that is not UTF-8, has a bad escape or repeats a name is a 400; malformed Basic is a 401")
    func malformedForms() async throws {
        let server = try await TestServer.shared.get()
        let basic = RawHTTP.basic("secret-basic", "basic-secret")
        func post(_ body: [UInt8], _ headers: [(String, String)] = []) async throws -> RawResponse {
            try await RawHTTP.send(
                "POST", Self.tokenURL(server),
                headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers, body: Data(body))
        }
        let notUTF8 = try await post(Array("grant_type=client_credentials&scope=".utf8) + [0xC3, 0x28], [basic])
        #expect(notUTF8.status == 400 && notUTF8.text.contains("not UTF-8"), "\(notUTF8.text)")
        let badEscape = try await post(Array("grant_type=client_credentials&scope=%4".utf8), [basic])
        #expect(badEscape.status == 400 && badEscape.text.contains("not valid URL encoding"), "\(badEscape.text)")
        let repeated = try await post(
            Array("grant_type=client_credentials&grant_type=client_credentials".utf8), [basic])
        #expect(repeated.status == 400 && repeated.text.contains("repeated"), "\(repeated.text)")
        let good = try await post(Array("grant_type=client_credentials&&scope=api&".utf8), [basic])
        #expect(good.status == 200, "\(good.text)")
        for authorization in [
            "Basic c2VjcmV0LWJhc2ljOmJhc2ljLXNlY3JldA", "Basic c2VjcmV0LWJhc2ljOmJhc2ljLXNlY3JldA=!", "Basic /w==",
        ] {
            let refused = try await post(
                Array("grant_type=client_credentials".utf8), [("Authorization", authorization)])
            #expect(refused.status == 401 && refused.json["error"] == "invalid_client", "\(authorization)")
        }
    }

    @Test(
        "private_key_jwt (ES256) and client_secret_jwt (HS256); a replayed, mis-addressed or expired assertion is refused"
    )
    func clientAssertions() async throws {
        let server = try await TestServer.shared.get()
        let url = Self.tokenURL(server)
        let jwtType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
        let keyAssertion = try Self.assertion(clientID: "key-jwt", audience: url, signer: TestConfiguration.clientKey)
        let keyed = try await RawHTTP.form(
            url,
            [
                ("grant_type", "client_credentials"), ("client_assertion_type", jwtType),
                ("client_assertion", keyAssertion),
            ])
        #expect(keyed.status == 200, "\(keyed.text)")
        let replayed = try await RawHTTP.form(
            url,
            [
                ("grant_type", "client_credentials"), ("client_assertion_type", jwtType),
                ("client_assertion", keyAssertion),
            ])
        #expect(replayed.status == 401 && replayed.json["error"] == "invalid_client")

        let secretSigner = try JWK(json: [
            "kty": "oct", "k": .string(Base64URL.encode("a-long-shared-secret-for-hs256-signing")),
        ]).signer(algorithm: .hs256)
        let secretAssertion = try Self.assertion(clientID: "secret-jwt", audience: url, signer: secretSigner)
        let shared = try await RawHTTP.form(
            url,
            [
                ("grant_type", "client_credentials"), ("client_assertion_type", jwtType),
                ("client_assertion", secretAssertion),
            ])
        #expect(shared.status == 200, "\(shared.text)")

        let wrongAudience = try Self.assertion(
            clientID: "key-jwt", audience: "https://elsewhere.example", signer: TestConfiguration.clientKey)
        #expect(
            try await RawHTTP.form(
                url,
                [
                    ("grant_type", "client_credentials"), ("client_assertion_type", jwtType),
                    ("client_assertion", wrongAudience),
                ]
            ).status == 401)
        let expired = try Self.assertion(
            clientID: "key-jwt", audience: url, signer: TestConfiguration.clientKey, expiresIn: -10)
        #expect(
            try await RawHTTP.form(
                url,
                [
                    ("grant_type", "client_credentials"), ("client_assertion_type", jwtType),
                    ("client_assertion", expired),
                ]
            ).status == 401)
        let otherKey = try Self.assertion(clientID: "key-jwt", audience: url, signer: SoftwareP256SigningKey())
        #expect(
            try await RawHTTP.form(
                url,
                [
                    ("grant_type", "client_credentials"), ("client_assertion_type", jwtType),
                    ("client_assertion", otherKey),
                ]
            ).status == 401)
    }

    @Test(
        "authorization_code: token-bound codes need a proof from the flow's key; redirect_uri must match; codes are single use"
    )
    func authorizationCode() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let code = try await device.passwordLogin()

        let withoutProof = try await device.redeem(code: code, withProof: false)
        #expect(withoutProof.status == 400 && withoutProof.json["error"] == "invalid_dpop_proof")
        #expect(withoutProof.json["error_description"] == "Missing DPoP Proof Token [dpop.missing]")

        let stranger = Dpop(key: SoftwareP256SigningKey())
        let strangerProof = try stranger.createProof(
            httpMethod: "POST", url: #require(URL(string: Self.tokenURL(server))), nonce: device.nonce)
        let wrongKey = try await RawHTTP.form(
            Self.tokenURL(server),
            [
                ("grant_type", "authorization_code"), ("client_id", "haapi-demo"),
                ("code", code), ("redirect_uri", "app://haapi"),
                ("code_verifier", try #require(device.pkce).codeVerifier),
            ],
            headers: [("DPoP", strangerProof)])
        #expect(wrongKey.status == 400 && wrongKey.json["error"] == "invalid_dpop_proof")

        let wrongRedirect = try await device.redeem(code: code, redirectURI: "app://other")
        #expect(wrongRedirect.status == 400 && wrongRedirect.json["error"] == "invalid_grant")

        let good = try await device.redeem(code: code)
        #expect(good.status == 200 && good.json["token_type"] == "DPoP", "\(good.text)")
        let reused = try await device.redeem(code: code)
        #expect(reused.status == 400 && reused.json["error"] == "invalid_grant")

        let unknown = try await device.redeem(code: "made-up")
        #expect(unknown.json["error"] == "invalid_grant")
    }

    @Test("an expired code is invalid_grant")
    func expiredCode() async throws {
        let server = try await TestServer()
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let code = try await device.passwordLogin()
        server.clock.advance(61)
        let response = try await device.redeem(code: code)
        #expect(
            response.status == 400
                && response.json["error_description"] == "the authorization code has expired [oauth.code-expired]")
        await server.stop()
    }

    @Test("PKCE S256 when the client requires it: no verifier or a wrong one fails, the right one works")
    func pkce() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base, clientID: "consent-client")
        try await device.obtainHaapiToken()
        let missing = try await device.authorize(redirectURI: "app://consent", usePKCE: false)
        #expect(missing.status == 400 && missing.json["error"] == "invalid_request")

        let pkce = PKCE()
        let redirect = try await device.authorize(
            redirectURI: "app://consent",
            extra: [("code_challenge", pkce.codeChallenge), ("code_challenge_method", "S256")])
        let login = try await device.submit(redirect.json["actions"]?[0])
        let afterLogin = try await device.submit(
            login.json["actions"]?[0], [("userName", "demouser"), ("password", "Password1")])
        let consent = try await device.submit(afterLogin.json["actions"]?[0])
        #expect(consent.json["type"] == "user-consent-step")
        let final = try await device.submit(consent.json["actions"]?[0], [("scope_profile", "profile")])
        let code = try #require(final.json["properties"]?["code"]?.stringValue)
        #expect(try await device.redeem(code: code, redirectURI: "app://consent").json["error"] == "invalid_grant")
        #expect(
            try await device.redeem(
                code: code, redirectURI: "app://consent", extra: [("code_verifier", PKCE().codeVerifier)]
            ).json["error"] == "invalid_grant")
        let tokens = try await device.redeem(
            code: code, redirectURI: "app://consent", extra: [("code_verifier", pkce.codeVerifier)])
        #expect(tokens.status == 200, "\(tokens.text)")
        #expect(tokens.json["scope"] == "openid profile")
    }

    @Test(
        "refresh: rotation; reusing a rotated token after the leeway revokes the family; a bound token needs the same key"
    )
    func refreshRotation() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let device = try await AuthenticatorTests.device(server)
        let tokens = try await device.redeem(code: try await device.passwordLogin())
        let first = try #require(tokens.json["refresh_token"]?.stringValue)

        let otherKey = try await device.refresh(first, withKey: Dpop(key: SoftwareP256SigningKey()))
        #expect(otherKey.status == 400 && otherKey.json["error"] == "invalid_dpop_proof")

        let rotated = try await device.refresh(first)
        #expect(rotated.status == 200 && rotated.json["token_type"] == "DPoP")
        let second = try #require(rotated.json["refresh_token"]?.stringValue)
        #expect(second != first)

        server.clock.advance(31)  // past the default 30 s rotation leeway
        let reuse = try await device.refresh(first)
        #expect(reuse.status == 400 && reuse.json["error"] == "invalid_grant")
        #expect(reuse.json["error_description"]?.stringValue?.contains("family") == true)
        let familyGone = try await device.refresh(second)
        #expect(familyGone.status == 400 && familyGone.json["error"] == "invalid_grant")
        let access = try #require(rotated.json["access_token"]?.stringValue)
        let introspected = try await RawHTTP.form(
            server.base + "/oauth/introspect", [("token", access)],
            headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(introspected.json["active"] == false)
    }

    @Test(
        "rotation leeway: a client killed before it stored the new refresh token refreshes again with the old one; the leeway never restarts"
    )
    func rotationLeeway() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let device = try await AuthenticatorTests.device(server)
        let first = try #require(
            try await device.redeem(code: try await device.passwordLogin()).json["refresh_token"]?.stringValue)
        let lost = try await device.refresh(first)  // the answer the killed client never stored
        #expect(lost.status == 200)

        server.clock.advance(20)
        let retried = try await device.refresh(first)
        #expect(retried.status == 200, "\(retried.text)")
        let kept = try #require(retried.json["refresh_token"]?.stringValue)
        // Within the leeway the old token still needs the key it is bound to.
        let stolen = try await device.refresh(first, withKey: Dpop(key: SoftwareP256SigningKey()))
        #expect(stolen.status == 400 && stolen.json["error"] == "invalid_dpop_proof")

        // 20 + 15 s after the first rotation: the second use did not restart the leeway, so this is a replay.
        server.clock.advance(15)
        let replay = try await device.refresh(first)
        #expect(replay.status == 400 && replay.json["error"] == "invalid_grant")
        #expect(try await device.refresh(kept).json["error"] == "invalid_grant", "the family is revoked")
    }

    @Test(
        "rotation leeway: a reuse supersedes the unused earlier replacement (one live branch); presenting it revokes the family"
    )
    func leewayKeepsOneBranch() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let device = try await AuthenticatorTests.device(server)
        let first = try #require(
            try await device.redeem(code: try await device.passwordLogin()).json["refresh_token"]?.stringValue)
        // Whoever got the first answer (a thief who replayed, or the client that was killed) holds this one.
        let earlier = try #require(try await device.refresh(first).json["refresh_token"]?.stringValue)
        server.clock.advance(5)
        let retried = try await device.refresh(first)
        let current = try #require(retried.json["refresh_token"]?.stringValue, "\(retried.text)")
        #expect(current != earlier)
        // The earlier replacement is no second live branch: presenting it is a reuse, which revokes the family.
        let other = try await device.refresh(earlier)
        #expect(other.status == 400 && other.json["error"] == "invalid_grant")
        #expect(try await device.refresh(current).json["error"] == "invalid_grant", "the family is revoked")
    }

    @Test("rotation leeway: once the replacement has been used, the old token again is theft and revokes the family")
    func leewayEndsWhenReplacementUsed() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let device = try await AuthenticatorTests.device(server)
        let first = try #require(
            try await device.redeem(code: try await device.passwordLogin()).json["refresh_token"]?.stringValue)
        let second = try #require(try await device.refresh(first).json["refresh_token"]?.stringValue)
        let third = try #require(try await device.refresh(second).json["refresh_token"]?.stringValue)
        server.clock.advance(5)
        let stolen = try await device.refresh(first)
        #expect(stolen.status == 400 && stolen.json["error"] == "invalid_grant", "\(stolen.text)")
        #expect(try await device.refresh(third).json["error"] == "invalid_grant", "the family is revoked")
    }

    @Test("rotation leeway 0: an immediate reuse revokes the family")
    func rotationLeewayOff() async throws {
        var configuration = try TestConfiguration.make()
        configuration.lifetimes.refreshTokenReuseGrace = 0
        let server = try await TestServer(configuration: configuration)
        defer { Task { await server.stop() } }
        let device = try await AuthenticatorTests.device(server)
        let first = try #require(
            try await device.redeem(code: try await device.passwordLogin()).json["refresh_token"]?.stringValue)
        let second = try #require(try await device.refresh(first).json["refresh_token"]?.stringValue)
        server.clock.advance(0.01)
        #expect(try await device.refresh(first).json["error"] == "invalid_grant")
        #expect(try await device.refresh(second).json["error"] == "invalid_grant")
    }

    @Test("unbound tokens when the client does not bind: legacy client, Bearer tokens, refresh without a proof")
    func unboundTokens() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base, clientID: "legacy-client")
        try await device.obtainHaapiToken()
        let code = try await device.passwordLogin(redirectURI: "app://legacy")
        let tokens = try await device.redeem(code: code, redirectURI: "app://legacy", withProof: false)
        #expect(tokens.status == 200 && tokens.json["token_type"] == "Bearer", "\(tokens.text)")
        let refresh = try await RawHTTP.form(
            server.base + "/oauth/token",
            [
                ("grant_type", "refresh_token"), ("client_id", "legacy-client"),
                ("refresh_token", tokens.json["refresh_token"]?.stringValue ?? ""),
            ])
        #expect(refresh.status == 200)
    }

    @Test("revocation (RFC 7009) and introspection (RFC 7662, with cnf)")
    func revokeAndIntrospect() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let tokens = try await device.redeem(code: try await device.passwordLogin())
        let access = try #require(tokens.json["access_token"]?.stringValue)
        let refresh = try #require(tokens.json["refresh_token"]?.stringValue)
        let introspectURL = server.base + "/oauth/introspect"

        let active = try await RawHTTP.form(
            introspectURL, [("token", access)], headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(
            active.json["active"] == true && active.json["token_type"] == "DPoP" && active.json["sub"] == "demouser")
        #expect(active.json["cnf"]?["jkt"]?.stringValue == device.key.thumbprint)
        #expect(active.json["client_id"] == "haapi-demo" && active.json["exp"]?.numberValue != nil)
        // A public client authenticates with a proof of the key its token is bound to, and sees only its own tokens.
        func asPublicClient(_ clientID: String, proof: Bool = true) async throws -> RawResponse {
            let response = try await RawHTTP.form(
                introspectURL, [("token", access), ("client_id", clientID)],
                headers: proof ? [("DPoP", try device.proof("POST", introspectURL))] : [])
            device.remember(response)
            return response
        }
        let unproven = try await asPublicClient("haapi-demo", proof: false)
        #expect(unproven.status == 401 && unproven.json["error"] == "invalid_client", "\(unproven.text)")
        let own = try await asPublicClient("haapi-demo")
        #expect(own.json["active"] == true, "\(own.text)")
        let foreign = try await asPublicClient("legacy-client")
        #expect(foreign.json["active"] == false, "\(foreign.text)")
        let anonymous = try await RawHTTP.form(introspectURL, [("token", access)])
        #expect(anonymous.status == 401)

        let revoke = try await RawHTTP.form(
            server.base + "/oauth/revoke", [("token", refresh), ("client_id", "haapi-demo")])
        #expect(revoke.status == 200)
        #expect(try await device.refresh(refresh).json["error"] == "invalid_grant")
        #expect(try await asPublicClient("haapi-demo").json["active"] == false)
        let unknown = try await RawHTTP.form(
            server.base + "/oauth/revoke", [("token", "never-issued"), ("client_id", "haapi-demo")])
        #expect(unknown.status == 200)
        let missing = try await RawHTTP.form(server.base + "/oauth/revoke", [("client_id", "haapi-demo")])
        #expect(missing.status == 400 && missing.json["error"] == "invalid_request")
    }

    @Test("RFC 6749 §5.2 errors: unsupported grant, missing grant, wrong media type, repeated parameters")
    func errors() async throws {
        let server = try await TestServer.shared.get()
        let url = Self.tokenURL(server)
        #expect(try await RawHTTP.form(url, [("grant_type", "password")]).json["error"] == "unsupported_grant_type")
        #expect(try await RawHTTP.form(url, [("client_id", "x")]).json["error"] == "invalid_request")
        let json = try await RawHTTP.send(
            "POST", url, headers: [("Content-Type", "application/json")], body: Data("{}".utf8))
        #expect(json.status == 415 && json.json["error"] == "invalid_request")
        let repeated = try await RawHTTP.send(
            "POST", url, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Data("grant_type=client_credentials&grant_type=refresh_token".utf8))
        #expect(repeated.status == 400 && repeated.json["error"] == "invalid_request")
        #expect(repeated.header("Cache-Control") == "no-store")
    }
}

@Suite("Dynamic client registration (item 5)")
struct RegistrationTests {
    @Test("templatized DCR: a dcr token of the main client registers a client that gets HAAPI tokens and logs in")
    func fallbackPath() async throws {
        let server = try await TestServer.shared.get()
        let initial = try await RawHTTP.form(
            server.base + "/oauth/token", [("grant_type", "client_credentials"), ("scope", "dcr")],
            headers: [RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me")])
        let dcrToken = try #require(initial.json["access_token"]?.stringValue, "\(initial.text)")
        let registration = try await RawHTTP.send(
            "POST", server.base + "/oauth/register",
            headers: [
                ("Authorization", "Bearer " + dcrToken), ("Content-Type", "application/json"),
            ], body: Data(#"{"software_id":"haapi-dcr-template"}"#.utf8))
        #expect(registration.status == 201, "\(registration.text)")
        let clientID = try #require(registration.json["client_id"]?.stringValue)
        let secret = try #require(registration.json["client_secret"]?.stringValue)
        #expect(registration.json["software_id"] == "haapi-dcr-template")

        let device = HaapiDevice(base: server.base, clientID: clientID)
        let tokenURL = server.base + "/oauth/token"
        func haapiToken() async throws -> RawResponse {
            let response = try await RawHTTP.form(
                tokenURL, [("grant_type", "client_credentials"), ("scope", "urn:se:curity:scopes:haapi")],
                headers: [RawHTTP.basic(clientID, secret), ("DPoP", try device.proof("POST", tokenURL))])
            device.remember(response)
            return response
        }
        var token = try await haapiToken()
        if token.json["error"] == "use_dpop_nonce" { token = try await haapiToken() }
        #expect(token.status == 200 && token.json["token_type"] == "DPoP", "\(token.text)")
        device.haapiToken = token.json["access_token"]?.stringValue
        let code = try await device.passwordLogin()
        let tokens = try await RawHTTP.form(
            tokenURL,
            [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", "app://haapi"),
                ("code_verifier", try #require(device.pkce).codeVerifier),
            ],
            headers: [RawHTTP.basic(clientID, secret), ("DPoP", try device.proof("POST", tokenURL))])
        #expect(tokens.status == 200 && tokens.json["token_type"] == "DPoP", "\(tokens.text)")
        #expect(
            try await RawHTTP.form(
                tokenURL, [("grant_type", "client_credentials"), ("scope", "urn:se:curity:scopes:haapi")],
                headers: [RawHTTP.basic(clientID, "wrong")]
            ).status == 401)

        // A confidential client may skip PKCE; then a code_verifier at the token endpoint is a downgrade or a
        // mix-up (RFC 9700 §2.1.1) and is refused, while the same exchange without it works.
        let plainCode = try await device.passwordLogin(usePKCE: false)
        let mixedUp = try await RawHTTP.form(
            tokenURL,
            [
                ("grant_type", "authorization_code"), ("code", plainCode), ("redirect_uri", "app://haapi"),
                ("code_verifier", PKCE().codeVerifier),
            ],
            headers: [RawHTTP.basic(clientID, secret), ("DPoP", try device.proof("POST", tokenURL))])
        #expect(mixedUp.status == 400 && mixedUp.json["error"] == "invalid_grant", "\(mixedUp.text)")
        let plain = try await RawHTTP.form(
            tokenURL, [("grant_type", "authorization_code"), ("code", plainCode), ("redirect_uri", "app://haapi")],
            headers: [RawHTTP.basic(clientID, secret), ("DPoP", try device.proof("POST", tokenURL))])
        #expect(plain.status == 200, "\(plain.text)")
    }

    @Test("registration needs a live dcr-scoped token of the template's main client and a known template")
    func rejections() async throws {
        let server = try await TestServer.shared.get()
        let url = server.base + "/oauth/register"
        let body = Data(#"{"software_id":"haapi-dcr-template"}"#.utf8)
        #expect(
            try await RawHTTP.send("POST", url, headers: [("Content-Type", "application/json")], body: body).status
                == 401)
        let apiToken =
            try await RawHTTP.form(
                server.base + "/oauth/token", [("grant_type", "client_credentials")],
                headers: [RawHTTP.basic("secret-basic", "basic-secret")]
            ).json["access_token"]?.stringValue ?? ""
        let wrongScope = try await RawHTTP.send(
            "POST", url, headers: [("Authorization", "Bearer " + apiToken)], body: body)
        #expect(wrongScope.status == 401 && wrongScope.json["error"] == "invalid_token")
        let dcrToken =
            try await RawHTTP.form(
                server.base + "/oauth/token", [("grant_type", "client_credentials"), ("scope", "dcr")],
                headers: [RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me")]
            ).json["access_token"]?.stringValue ?? ""
        let noTemplate = try await RawHTTP.send(
            "POST", url, headers: [("Authorization", "Bearer " + dcrToken)],
            body: Data(#"{"software_id":"haapi-demo"}"#.utf8))
        #expect(noTemplate.status == 400 && noTemplate.json["error"] == "invalid_software_statement")
        let noSoftwareID = try await RawHTTP.send(
            "POST", url, headers: [("Authorization", "Bearer " + dcrToken)], body: Data("{}".utf8))
        #expect(noSoftwareID.json["error"] == "invalid_client_metadata")
    }
}
