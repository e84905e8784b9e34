import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird

/// The authorization endpoint and what follows the authenticators: resume, consent and the code.
struct AuthorizeRoutes: ServerService, FlowCompleting {
    let address: ServerAddress
    let configuration: ServerConfiguration
    let store: ServerStore
    let clients: ClientRegistry
    let dpop: DPoPVerifier
    let nonces: DPoPNonceService
    let accessTokens: SealedAccessTokens
    let flows: FlowStore
    let clock: @Sendable () -> Date
    /// Where a chosen authenticator starts.
    let authenticatorService: AuthenticatorRoutes
}

extension AuthorizeRoutes {
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(stringLiteral: Paths.authorize)) { request, _ in try await self.authorize(request) }
        router.get(RouterPath(stringLiteral: Paths.authorizeResume)) { request, _ in try await self.resume(request) }
        router.post(RouterPath(stringLiteral: Paths.consent)) { request, _ in try await self.consent(request) }
        router.post(RouterPath(stringLiteral: Paths.consentCancel)) { request, _ in
            try await self.cancelConsent(request)
        }
        router.get(RouterPath(stringLiteral: Paths.authenticate)) { request, _ in
            try await self.selectAuthenticator(request)
        }
    }

    /// The flow's end with an OAuth error: its `error_description` names `rule` in brackets, as the token
    /// endpoint's do; the title, which apps show, does not.
    private func authorizationProblem(
        _ caller: HaapiCaller, error: String, description: String, rule: Rule, detail: String? = nil
    ) -> Response {
        problem(
            caller,
            Representation.problem(
                .errorAuthorizationResponseProblem, title: description,
                extra: [
                    "error": .string(error), "error_description": .string(HTTP.described(description, rule)),
                    "iss": .string(issuer), "code": .string(error),
                ]), rule: rule, detail: detail)
    }

    /// The authorize request starts a flow and answers with a redirection to authentication.
    func authorize(_ request: Request) async throws(Rejection) -> Response {
        let caller: HaapiCaller = try await haapiCaller(request, needsSession: false)
        let query = HTTP.query(request)
        if let repeated = HTTP.repeatedQueryNames(request).first {
            return authorizationProblem(
                caller, error: "invalid_request", description: "parameter \(repeated) is repeated",
                rule: .invalidRequest)
        }
        guard query["client_id"] == caller.client.id else {
            return authorizationProblem(
                caller, error: "invalid_client",
                description: "client_id must be the client the HAAPI token was issued to", rule: .clientUnknown,
                detail:
                    "client_id: expected \(caller.client.id), got \(query["client_id"].map { String($0.prefix(100)) } ?? "none")"
            )
        }
        guard let redirectURI = query["redirect_uri"], caller.client.configuration.redirectURIs.contains(redirectURI)
        else {
            return authorizationProblem(
                caller, error: "invalid_redirect_uri", description: "redirect_uri is not registered for this client",
                rule: .redirectURI,
                detail:
                    "redirect_uri: \(query["redirect_uri"].map(MaskedText.url) ?? "none") is not registered for \(caller.client.id) (registered: \(caller.client.configuration.redirectURIs.joined(separator: ", ")))"
            )
        }
        guard query["response_type"] == "code" else {
            return authorizationProblem(
                caller, error: "unsupported_response_type", description: "only response_type=code is supported",
                rule: .invalidRequest,
                detail:
                    "response_type: expected code, got \(query["response_type"].map { String($0.prefix(50)) } ?? "none")"
            )
        }
        let scope =
            query["scope"].map { $0.split(separator: " ").map(String.init) } ?? caller.client.configuration.scopes
        if let unknown = scope.first(where: { !caller.client.configuration.scopes.contains($0) }) {
            return authorizationProblem(
                caller, error: "invalid_scope", description: "scope \(unknown) is not allowed for this client",
                rule: .scope,
                detail:
                    "scope: \(unknown.prefix(100)) is not allowed for \(caller.client.id) (allowed: \(caller.client.configuration.scopes.joined(separator: " ")))"
            )
        }
        // PKCE (RFC 9700 §2.1.1): S256 only (`plain` and a missing method are refused), and required of
        // public clients and of clients configured to need it.
        let challenge = query["code_challenge"]
        if let challenge {
            guard query["code_challenge_method"] == PKCE.method else {
                return authorizationProblem(
                    caller, error: "invalid_request", description: "code_challenge_method must be S256",
                    rule: .pkcePlain,
                    detail:
                        "code_challenge_method: expected S256, got \(query["code_challenge_method"].map { String($0.prefix(20)) } ?? "none (plain)")"
                )
            }
            guard challenge.utf8.count == 43, Base64URL.decode(challenge)?.count == 32 else {
                return authorizationProblem(
                    caller, error: "invalid_request", description: "code_challenge must be a base64url SHA-256 hash",
                    rule: .invalidRequest,
                    detail: "code_challenge: expected 43 base64url characters, got \(challenge.utf8.count) bytes")
            }
        } else if caller.client.configuration.requirePKCE || !caller.client.configuration.isConfidential {
            return authorizationProblem(
                caller, error: "invalid_request", description: "this client must use PKCE (code_challenge with S256)",
                rule: .pkceMissing, detail: "code_challenge: expected an S256 challenge, got none")
        }
        // What one request makes the server keep is bounded: state and nonce come back in the code's response.
        if (query["state"]?.utf8.count ?? 0) > 512 || (query["nonce"]?.utf8.count ?? 0) > 512 {
            return authorizationProblem(
                caller, error: "invalid_request", description: "state and nonce may be at most 512 bytes",
                rule: .invalidRequest)
        }
        let session = FlowSession(
            id: SecureRandom.token(byteCount: 24), clientID: caller.client.id, jkt: caller.jkt,
            redirectURI: redirectURI, scope: scope,
            state: query["state"], nonce: query["nonce"], codeChallenge: challenge,
            expiresAt: clock().addingTimeInterval(TimeInterval(configuration.lifetimes.flow)),
            login: login(for: caller.client))
        await flows.insert(session, now: clock())
        return representation(caller, Representation.redirection(to: url(Paths.authenticate)), setSession: session.id)
    }

    /// What the flow's login asks for now: at a choice, the selector of the authenticators that begin its
    /// options (with one, straight to it); at an authenticator, its first step. It is also where "choose another
    /// way" leads: a flow that has entered an option without finishing any step of it goes back to the choice.
    func selectAuthenticator(_ request: Request) async throws(Rejection) -> Response {
        let caller: HaapiCaller = try await haapiCaller(request, needsSession: true)
        guard let id = caller.session?.id,
            let session = await flows.update(
                id,
                { flow -> FlowSession in
                    flow.goBackToChoice()
                    return flow
                })
        else { return noFlowSession(caller) }
        guard let step = session.currentStep else {
            return representation(caller, Representation.redirection(to: url(Paths.authorizeResume)))
        }
        switch session.login.step(at: step.cursor) {
        case .authenticator(let id)?:
            return await authenticatorService.begin(id, caller: caller)
        case .choice(let options)?:
            let entries = options.flatMap(LoginStep.entries(of:)).compactMap { id in
                configuration.authenticators.first { $0.id == id }
            }
            if entries.count == 1, let only = entries.first {
                return await authenticatorService.begin(only.id, caller: caller)
            }
            let choices = entries.map { authenticator in
                Representation.form(
                    kind: "select-authenticator", title: authenticator.title,
                    href: url(Paths.authenticate + "/" + authenticator.id),
                    method: "GET", properties: ["authenticatorType": .string(authenticator.advertisedType)])
            }
            return representation(
                caller,
                Representation.step(
                    "authentication-step", viewName: "views/select-authenticator/index",
                    actions: [
                        [
                            "template": "selector", "kind": "authenticator-selector",
                            "title": "Select Authentication Method",
                            "model": ["options": .array(choices)],
                        ]
                    ]))
        case nil:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "The login has no step here"),
                rule: .flowState, detail: "login \(session.login.id) has no step at \(step.cursor)")
        }
    }

    /// A HAAPI request in a flow whose login is complete (resume and consent).
    private func authenticatedFlow(_ request: Request) async throws(Rejection) -> (HaapiCaller, FlowSession) {
        try authenticatedFlow(of: try await haapiCaller(request, needsSession: true))
    }

    /// The flow of a checked caller, if its login is complete. (Its proof was used: never check a request twice.)
    private func authenticatedFlow(of caller: HaapiCaller) throws(Rejection) -> (HaapiCaller, FlowSession) {
        guard let session = caller.session, session.authenticatedUser != nil else {
            throw Rejection(
                problem(
                    caller, Representation.problem(.unexpectedProblem, title: "The user is not authenticated yet"),
                    rule: .flowState, detail: "resume or consent before the login's last step was done"))
        }
        return (caller, session)
    }

    func resume(_ request: Request) async throws(Rejection) -> Response {
        // A resume that finished the flow is a GET the client may send again when its answer was lost: the same
        // client and key get the same answer for a while (`FinishedFlow`).
        let checked = try await haapiCaller(request, needsSession: true, replaysFinished: true)
        if let answer = checked.finishedAnswer { return representation(checked, answer) }
        let (caller, session) = try authenticatedFlow(of: checked)
        guard caller.client.configuration.consent else {
            return await issueCode(caller, session: session, scope: session.scope)
        }
        let fields = session.scope.map { scope in
            Representation.field(
                "scope_" + scope, type: "checkbox", label: scope, value: scope,
                extra: ["checked": true, "readonly": .bool(scope == "openid")])
        }
        return representation(
            caller,
            Representation.step(
                "user-consent-step", viewName: "views/oauth/consent",
                actions: [
                    Representation.form(
                        kind: "user-consent", title: "Allow \(caller.client.id) access", href: url(Paths.consent),
                        fields: fields, actionTitle: "Accept"),
                    Representation.form(
                        kind: "cancel", title: "Decline", href: url(Paths.consentCancel), actionTitle: "Decline"),
                ],
                messages: [Representation.message("\(caller.client.id) asks for access to your account", ["heading"])]))
    }

    func consent(_ incoming: Request) async throws(Rejection) -> Response {
        var request = incoming
        let (caller, session) = try await authenticatedFlow(request)
        let form = (try? await HTTP.form(&request, limit: configuration.security.maxRequestBytes)) ?? [:]
        let granted = session.scope.filter { $0 == "openid" || form["scope_" + $0] != nil }
        return await issueCode(caller, session: session, scope: granted)
    }

    func cancelConsent(_ request: Request) async throws(Rejection) -> Response {
        let caller: HaapiCaller = try await haapiCaller(request, needsSession: true)
        if let session = caller.session { await flows.remove(session.id) }
        return authorizationProblem(
            caller, error: "access_denied", description: "The user declined the request", rule: .flowState,
            detail: "the user declined consent")
    }

    /// `session_state` as OpenID Connect Session Management 1.0 §3 makes it: base64(SHA-256(client id, origin of
    /// the redirect URI, the OP's state for this user agent, salt)) "." salt. A HAAPI login has no browser
    /// cookie, so the flow's own id (random, never reused) stands for the OP's state.
    static func sessionState(clientID: String, redirectURI: String, flow: String) -> String {
        let origin = URL(string: redirectURI).map { "\($0.scheme ?? "")://\($0.host ?? "")" } ?? redirectURI
        let salt = SecureRandom.token(byteCount: 8)
        let hash = SHA256.hash(data: Data([clientID, origin, flow, salt].joined(separator: " ").utf8))
        return Data(hash).base64EncodedString() + "." + salt
    }

    /// Ends the flow with an authorization code, bound to the flow's key when the client asks for that. The
    /// user the login proved must be an account (a configured one, or one this flow registered): a step that
    /// proved a name nobody has gets no code.
    private func issueCode(_ caller: HaapiCaller, session: FlowSession, scope: [String]) async -> Response {
        guard let (username, authTime) = session.authenticatedUser else {
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Not authenticated"), rule: .flowState)
        }
        let now = clock()
        do {
            guard try await store.user(named: username) != nil else {
                await flows.remove(session.id)
                return problem(
                    caller,
                    Representation.problem(.authenticationFailedProblem, title: "The sign-in did not prove an account"),
                    rule: .flowSubject, detail: "the login ended with a user that is not an account")
            }
        } catch {
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Could not issue the code"),
                rule: .storeFailure, status: .internalServerError)
        }
        let code = SecureRandom.token(byteCount: 32)
        do {
            try await store.storeCode(
                code,
                AuthorizationCodeRecord(
                    clientID: session.clientID, username: username, redirectURI: session.redirectURI,
                    scope: scope.joined(separator: " "),
                    jkt: caller.client.configuration.tokenBoundCodes ? session.jkt : nil,
                    codeChallenge: session.codeChallenge,
                    nonce: session.nonce, authTime: authTime,
                    expiresAt: now.addingTimeInterval(TimeInterval(configuration.lifetimes.authorizationCode))))
        } catch {
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Could not issue the code"),
                rule: .storeFailure, status: .internalServerError)
        }
        let sessionState = Self.sessionState(
            clientID: session.clientID, redirectURI: session.redirectURI, flow: session.id)
        var parameters: [(name: String, value: String)] = [("code", code)]
        if let state = session.state { parameters.append(("state", state)) }
        parameters.append(("session_state", sessionState))
        parameters.append(("iss", issuer))
        var properties: JSONObject = ["code": .string(code)]
        if let state = session.state { properties["state"] = .string(state) }
        properties["session_state"] = .string(sessionState)
        properties["iss"] = .string(issuer)
        let separator = session.redirectURI.contains("?") ? "&" : "?"
        let answer = Representation.step(
            "oauth-authorization-response", viewName: "templates/oauth/success-authorization-response",
            links: [
                Representation.link(
                    session.redirectURI + separator + FormURLEncoding.encode(parameters), rel: "authorization-response")
            ],
            properties: .object(properties))
        await flows.finish(
            session.id, as: FinishedFlow(clientID: caller.client.id, jkt: caller.jkt, answer: answer), now: now)
        return representation(caller, answer)
    }
}
