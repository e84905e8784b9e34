import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules
@_spi(Tooling) import HaapiSdk

/// The OAuth hygiene group, for a server where a login can be automated (a username and password for the
/// password authenticator): PKCE is required and `plain` refused, the redirect URI matched exactly, the code
/// single-use, refresh tokens rotated with reuse detected, revocation effective, and introspection closed to
/// callers without client authentication. Without a login (no username, or no HAAPI to log in through) the
/// checks that need none run on the DPoP group's token: introspection closed, and revocation with the secret.
package struct HygieneChecks {
    package init(
        client: CheckClient, username: String?, password: String?, authenticator: String,
        loginImpossible: String? = nil, token: String? = nil
    ) {
        self.client = client
        self.username = username
        self.password = password
        self.authenticator = authenticator
        self.loginImpossible = loginImpossible
        self.token = token
    }

    package let client: CheckClient
    package let username: String?
    package let password: String?
    package let authenticator: String
    /// The finding id that rules out a HAAPI login (`haapi.absent`), when one does.
    package var loginImpossible: String? = nil
    /// A live access token from the DPoP group, for the checks that need no login.
    package var token: String? = nil

    /// How the helpers report: id, severity, title, reference, sent, received, fix.
    private typealias Add = (String, CheckFinding.Severity, String, String, String?, String?, String?) -> Void

    package func run(_ report: inout [CheckFinding]) async {
        // Collected here and added once: a local function cannot capture the `inout` report.
        var found: [CheckFinding] = []
        func add(
            _ id: String, _ severity: CheckFinding.Severity, _ title: String, reference: String,
            sent: String? = nil, received: String? = nil, fix: String? = nil
        ) {
            found.append(
                CheckFinding(
                    id: id, group: .hygiene, severity: severity, title: title, sent: sent, received: received,
                    reference: reference, fix: fix))
        }
        defer { report += found }
        guard let username, let password, loginImpossible == nil else {
            let why = loginImpossible.map { "the logins run through HAAPI (\($0))" } ?? "--username was not given"
            add(
                "hygiene.no-login", .info,
                "The PKCE, redirect URI, code and refresh checks need a login: \(why)", reference: "docs/CHECK.md")
            if let token {
                await introspection(token, add: add)
                await accessTokenRevocation(token, add: add)
            }
            return
        }
        let configuration = client.configuration()
        let manager: HaapiManager
        do { manager = try HaapiManager(haapiConfiguration: configuration) } catch {
            add("hygiene.configuration", .error, "The client could not be set up: \(error)", reference: "seed 000")
            return
        }
        defer { Task { await manager.close() } }
        let login = UnattendedLogin(
            manager: manager, username: username, password: password, authenticator: authenticator,
            onConsent: nil)

        // The authorization requests a well-behaved client never sends: each must be refused.
        let base: [(name: String, value: String)] = [
            ("client_id", client.clientID), ("response_type", "code"), ("scope", client.scope.joined(separator: " ")),
        ]
        let challenge = PKCE().codeChallenge
        let plain = PKCE().codeVerifier
        let variants:
            [(
                id: String, query: [(name: String, value: String)], note: String, severity: CheckFinding.Severity,
                reference: String, fix: String
            )] = [
                (
                    Rule.pkceMissing.id, base + [("redirect_uri", client.redirectURI)], "no code_challenge", .warning,
                    "RFC 9700 §2.1.1",
                    "require PKCE (S256) for every authorization request of client \(client.clientID)"
                ),
                (
                    Rule.pkcePlain.id,
                    base + [
                        ("redirect_uri", client.redirectURI), ("code_challenge", plain),
                        ("code_challenge_method", "plain"),
                    ],
                    "code_challenge_method plain", .warning, "RFC 9700 §2.1.1, RFC 7636 §4.2",
                    "accept only S256 as the PKCE method"
                ),
                (
                    Rule.redirectURI.id,
                    base + [
                        ("redirect_uri", client.redirectURI + "/haapi-check"), ("code_challenge", challenge),
                        ("code_challenge_method", "S256"),
                    ], "redirect_uri with an extra path segment", .error, "RFC 9700 §2.1, §4.1.3",
                    "compare redirect URIs with the registered ones by exact string match"
                ),
            ]
        for variant in variants {
            let sent = "GET \(client.discovered.authorizationEndpoint.path) (\(variant.note))"
            switch await manager.startExactly(variant.query) {
            case .representation(let step):
                add(
                    variant.id, variant.severity,
                    "An authorization request with \(variant.note) is accepted", reference: variant.reference,
                    sent: sent, received: "a \(step.type.rawValue) step", fix: variant.fix)
            case .problem(let problem):
                add(
                    variant.id, .pass, "An authorization request with \(variant.note) is refused",
                    reference: variant.reference, sent: sent, received: "problem \(problem.type.rawValue)")
            case .error(let error):
                if case HaapiError.invalidStatusCode(let status)? = error as? HaapiError, (400..<500).contains(status) {
                    add(
                        variant.id, .pass,
                        "An authorization request with \(variant.note) is refused", reference: variant.reference,
                        sent: sent, received: "\(status)")
                } else {
                    add(
                        variant.id, .info,
                        "No answer to the authorization request with \(variant.note): \(Self.words(error))",
                        reference: variant.reference, sent: sent)
                }
            }
        }

        // A login with S256, then the refresh, revocation and code checks on its tokens. The code is reused
        // last: a server that sees a code come back rightly revokes what was issued for it.
        let oauth = OAuthTokenManager(oauthTokenConfiguration: configuration)
        let tokenPath = "POST \(client.discovered.tokenEndpoint.path)"
        var redeemed: Redeemed
        switch await redeem(login, configuration: configuration, dpop: manager.dpop) {
        case .failure(.login(let error)):
            add(
                "hygiene.login-failed", .warning, "The login could not be automated: \(Self.words(error))",
                reference: "docs/CHECK.md",
                fix: "give a test user's --username and --password-file, and --authenticator if it is not password")
            return
        case .failure(.code(let answer)):
            add(
                "oauth.pkce-mismatch", .error, "The authorization code with its S256 verifier was refused",
                reference: "RFC 7636 §4.6", sent: tokenPath + " (authorization_code)", received: Self.words(answer),
                fix: "accept the code with the verifier whose SHA-256 is the challenge")
            return
        case .success(let first):
            redeemed = first
        }
        add("oauth.pkce-mismatch", .pass, "A code from an S256 login is redeemed", reference: "RFC 7636 §4.6")
        await client.http.obtained(redeemed.tokens.accessToken)
        await introspection(redeemed.tokens.accessToken, add: add)
        if redeemed.tokens.tokenType?.lowercased() == "dpop", let userinfo = client.discovered.userinfoEndpoint {
            await ResourceChecks(endpoint: userinfo, http: client.http, dpop: manager.dpop).run(
                redeemed.tokens.accessToken, &found)
        }

        var live = redeemed.tokens.rawJSON["refresh_token"]?.stringValue
        if let first = live {
            let after = await refreshChecks(
                first, configuration: configuration, dpop: manager.dpop, add: add)
            live = after.live
            // A family that reuse detection revoked: revocation is checked on the tokens of a second login.
            if after.familyRevoked,
                case .success(let second) = await redeem(
                    login, configuration: configuration, dpop: manager.dpop)
            {
                redeemed = second
                await client.http.obtained(second.tokens.accessToken)
                live = second.tokens.rawJSON["refresh_token"]?.stringValue
            }
        } else {
            add(
                "hygiene.no-refresh-token", .info,
                "The login gave no refresh token (scopes: \(client.scope.joined(separator: " ")))",
                reference: "RFC 6749 §1.5")
        }
        if let live { await revocation(live, configuration: configuration, dpop: manager.dpop, add: add) }

        switch await oauth.fetchAccessToken(with: redeemed.code, dpop: manager.dpop, codeVerifier: redeemed.verifier) {
        case .successfulToken(let again):
            await client.http.obtained(again.accessToken)
            add(
                "oauth.code-reused", .error, "The same authorization code was redeemed twice",
                reference: "RFC 6749 §4.1.2, RFC 9700 §4.5", sent: tokenPath + " (the code again)",
                received: "200 access_token …",
                fix: "accept each code once, and revoke the tokens issued for it when it comes back")
        case let answer:
            add(
                "oauth.code-reused", .pass, "A code redeemed once is refused the second time",
                reference: "RFC 6749 §4.1.2", sent: tokenPath + " (the code again)", received: Self.words(answer))
        }
    }

    /// A login's code, its PKCE verifier and the tokens it was redeemed for.
    private struct Redeemed {
        let code: String
        let verifier: String
        let tokens: SuccessfulTokenResponse
    }

    private enum RedeemFailure: Error {
        case login(any Error)
        case code(TokenResponse)
    }

    /// An unattended login with a fresh S256 challenge, and its code redeemed with the verifier.
    private func redeem(
        _ login: UnattendedLogin, configuration: HaapiConfiguration, dpop: Dpop
    ) async -> Result<Redeemed, RedeemFailure> {
        let pkce = PKCE()
        let code: String
        do {
            code = try await login.run(
                parameters: OAuthAuthorizationParameters(scopes: client.scope, codeChallenge: pkce.codeChallenge))
        } catch { return .failure(.login(error)) }
        let answer = await OAuthTokenManager(oauthTokenConfiguration: configuration).fetchAccessToken(
            with: code, dpop: dpop, codeVerifier: pkce.codeVerifier)
        guard case .successfulToken(let tokens) = answer else { return .failure(.code(answer)) }
        return .success(Redeemed(code: code, verifier: pkce.codeVerifier, tokens: tokens))
    }

    /// RFC 7662 §2.1: the endpoint must require the caller's authorization; an anonymous caller learns nothing.
    private func introspection(
        _ token: String,
        add: Add
    ) async {
        guard let endpoint = client.discovered.introspectionEndpoint else {
            add(
                "hygiene.no-introspection", .info, "No introspection_endpoint is advertised", "RFC 8414 §2", nil, nil,
                nil)
            return
        }
        let request = HTTPRequest(
            method: "POST", url: endpoint,
            headers: [("Content-Type", MimeTypes.formURLEncoded), ("Accept", "application/json")],
            body: Data(FormURLEncoding.encode([("token", token)]).utf8))
        guard let response = try? await client.http.send(request) else { return }
        let active = (try? JSONParser().parse(response.body))?["active"]?.boolValue ?? false
        if response.statusCode == 200, active {
            add(
                "oauth.introspection-open", .error,
                "Introspection describes a live token to a caller without client authentication",
                "RFC 7662 §2.1, §4", CheckHTTP.line(request, "no client authentication"), CheckHTTP.line(response),
                "require client authentication (or a bearer token) at the introspection endpoint")
        } else {
            add(
                "oauth.introspection-open", .pass, "Introspection without client authentication reveals nothing",
                "RFC 7662 §2.1", CheckHTTP.line(request, "no client authentication"), CheckHTTP.line(response), nil)
        }
    }

    /// Rotation and reuse detection (RFC 9700 §4.14.2); returns a refresh token still live, for the
    /// revocation check, or that reuse detection revoked the family.
    private func refreshChecks(
        _ first: String, configuration: HaapiConfiguration, dpop: Dpop,
        add: Add
    ) async -> (live: String?, familyRevoked: Bool) {
        let sent = "POST \(client.discovered.tokenEndpoint.path) (refresh_token"
        // A manager per request: the SDK's own never sends a rotated token again, which is what is tried here.
        func refresh(_ token: String) async -> TokenResponse {
            await OAuthTokenManager(oauthTokenConfiguration: configuration).refreshAccessToken(with: token, dpop: dpop)
        }
        let answer = await refresh(first)
        guard case .successfulToken(let refreshed) = answer else {
            add(
                "hygiene.refresh-refused", .error, "A fresh refresh token was refused", "RFC 6749 §6", sent + ")",
                Self.words(answer), "accept the refresh token with a proof of the key it is bound to")
            return (nil, false)
        }
        await client.http.obtained(refreshed.accessToken)
        guard let second = refreshed.rawJSON["refresh_token"]?.stringValue, second != first else {
            add(
                "oauth.refresh-rotation", .warning,
                "Refreshing returns the same refresh token (or none): a stolen one stays usable with the key",
                "RFC 9700 §4.14.2", sent + ")", "200, the same refresh token",
                "rotate refresh tokens on each use and revoke the family when an old one comes back")
            return (first, false)
        }
        add(
            "oauth.refresh-rotation", .pass, "Each refresh gives a new refresh token", "RFC 9700 §4.14.2", nil, nil,
            nil)
        switch await refresh(first) {
        case .successfulToken(let again):
            await client.http.obtained(again.accessToken)
            add(
                "oauth.refresh-reused", .info,
                "The rotated refresh token was accepted once more right after its rotation: a reuse grace period (ours is 30 s); past it a reuse must be refused",
                "RFC 9700 §4.14.2", sent + ", the rotated one again)", "200", nil)
        default:
            add(
                "oauth.refresh-reused", .pass, "A rotated refresh token is refused", "RFC 9700 §4.14.2",
                sent + ", the rotated one again)", nil, nil)
        }
        // After a reuse the server cannot tell the thief from the client: the token issued before it must die too.
        switch await refresh(second) {
        case .successfulToken(let after):
            await client.http.obtained(after.accessToken)
            add(
                "oauth.refresh-reused", .warning,
                "After a rotated refresh token came back, its replacement still works",
                "RFC 9700 §4.14.2", sent + ", the replacement after a reuse)", "200",
                "revoke the whole token family when a rotated refresh token is presented")
            return (after.rawJSON["refresh_token"]?.stringValue ?? second, false)
        default:
            add(
                "oauth.refresh-reused", .pass, "A reuse revokes the family: the replacement is refused too",
                "RFC 9700 §4.14.2", sent + ", the replacement after a reuse)", nil, nil)
        }
        return (nil, true)
    }

    /// RFC 7009 §2.1 for an access token: revoked by its client, then introspected by it as inactive. Needs the
    /// client's secret (to authenticate both requests) and both endpoints.
    private func accessTokenRevocation(
        _ token: String,
        add: Add
    ) async {
        guard let secret = client.secret, let revocation = client.discovered.revocationEndpoint,
            let introspection = client.discovered.introspectionEndpoint
        else { return }
        func post(_ url: URL, _ form: [(String, String)]) -> HTTPRequest {
            HTTPRequest(
                method: "POST", url: url,
                headers: [
                    ("Content-Type", MimeTypes.formURLEncoded), ("Accept", "application/json"),
                    CheckClient.basic(id: client.clientID, secret: secret),
                ], body: Data(FormURLEncoding.encode(form).utf8))
        }
        // The token must be seen active first: a server that never shows this client its own token (an
        // introspection limited to the token's audience) would make any revocation look effective.
        let before = post(introspection, [("token", token)])
        let activeBefore = (try? await client.http.send(before)).flatMap { answer in
            answer.statusCode == 200 ? (try? JSONParser().parse(answer.body))?["active"]?.boolValue : nil
        }
        let revoke = post(revocation, [("token", token), ("token_type_hint", "access_token")])
        guard let revoked = try? await client.http.send(revoke) else { return }
        guard activeBefore == true else {
            add(
                Rule.revocation.id, .warning,
                "Inconclusive: introspection never showed this client its live access token as active, so its revocation cannot be seen",
                "", CheckHTTP.line(before, "before revoking it"), nil,
                "let the client introspect its own tokens, or check revocation with a resource that takes the token")
            return
        }
        guard revoked.statusCode == 200 else {
            add(
                "oauth.revocation", .error, "The client could not revoke its own access token",
                "RFC 7009 §2.2", CheckHTTP.line(revoke), CheckHTTP.line(revoked),
                "accept revocation requests from the client the token was issued to")
            return
        }
        let ask = post(introspection, [("token", token)])
        guard let answer = try? await client.http.send(ask), answer.statusCode == 200,
            let active = (try? JSONParser().parse(answer.body))?["active"]?.boolValue
        else { return }
        if active {
            add(
                "oauth.revocation", .error,
                "A revoked access token is still active at introspection", "RFC 7009 §2.1",
                CheckHTTP.line(ask, "after revoking it"), CheckHTTP.line(answer),
                "make revocation take effect at once for the token")
        } else {
            add(
                "oauth.revocation", .pass, "A revoked access token is inactive at introspection",
                "RFC 7009 §2.1", CheckHTTP.line(ask, "after revoking it"), CheckHTTP.line(answer), nil)
        }
    }

    /// RFC 7009 §2.1: a revoked refresh token is refused from then on.
    private func revocation(
        _ token: String, configuration: HaapiConfiguration, dpop: Dpop,
        add: Add
    ) async {
        guard let endpoint = client.discovered.revocationEndpoint else {
            add("hygiene.no-revocation", .info, "No revocation_endpoint is advertised", "RFC 8414 §2", nil, nil, nil)
            return
        }
        let oauth = OAuthTokenManager(oauthTokenConfiguration: configuration)
        guard case .success = await oauth.revokeRefreshToken(token) else {
            add(
                "oauth.revocation", .error, "The client could not revoke its own refresh token",
                "RFC 7009 §2.2", "POST \(endpoint.path) (refresh_token)", nil,
                "accept revocation requests from the client the token was issued to")
            return
        }
        switch await OAuthTokenManager(oauthTokenConfiguration: configuration).refreshAccessToken(
            with: token, dpop: dpop)
        {
        case .successfulToken(let still):
            await client.http.obtained(still.accessToken)
            if let next = still.rawJSON["refresh_token"]?.stringValue { _ = await oauth.revokeRefreshToken(next) }
            add(
                "oauth.revocation", .error, "A revoked refresh token still works",
                "RFC 7009 §2.1", "POST \(client.discovered.tokenEndpoint.path) (the revoked refresh token)", "200",
                "make revocation take effect at once for the token and the grant's other tokens")
        case .errorToken(let refusal) where refusal.error == "invalid_grant":
            add(
                "oauth.revocation", .pass, "A revoked refresh token was refused", "RFC 7009 §2.1",
                "POST \(endpoint.path), then the token at \(client.discovered.tokenEndpoint.path)",
                Self.words(.errorToken(refusal)), nil)
        case .errorToken(let refusal):
            add(
                "oauth.revocation", .info,
                "A revoked refresh token was refused for another reason (\(refusal.error)), so whether the revocation took effect cannot be told",
                "RFC 7009 §2.1", "POST \(endpoint.path), then the token at \(client.discovered.tokenEndpoint.path)",
                Self.words(.errorToken(refusal)), nil)
        case .error(let failure):
            add(
                "oauth.revocation", .warning,
                "Inconclusive: the revoked refresh token got no OAuth answer (\(Self.words(failure)))", "RFC 7009 §2.1",
                "POST \(endpoint.path), then the token at \(client.discovered.tokenEndpoint.path)", nil,
                "run the check again when the server answers")
        }
    }

    /// A refused token request as a report line: the OAuth error and its description, or the failure.
    package static func words(_ response: TokenResponse) -> String {
        switch response {
        case .successfulToken: "200 access_token …"
        case .errorToken(let error):
            [error.error, error.errorDescription.map { "\"\($0)\"" }].compactMap { $0 }.joined(separator: " ")
        case .error(let error): words(error)
        }
    }

    package static func words(_ error: any Error) -> String {
        (error as? HaapiError)?.errorDescription ?? "\(error)"
    }
}
