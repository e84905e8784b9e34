import Foundation
import HaapiModel
import Hummingbird

extension DevServer {
    func addAuthenticatorRoutes(to router: Router<ServerRequestContext>) {
        let base = Paths.authenticate
        router.get(RouterPath(stringLiteral: base + "/:authenticator")) { request, context in
            await self.authenticatorRequest(request, context, action: nil)
        }
        router.post(RouterPath(stringLiteral: base + "/:authenticator")) { request, context in
            await self.authenticatorRequest(request, context, action: nil)
        }
        router.get(RouterPath(stringLiteral: base + "/:authenticator/:action")) { request, context in
            await self.authenticatorRequest(request, context, action: context.parameters.get("action"))
        }
        router.post(RouterPath(stringLiteral: base + "/:authenticator/:action")) { request, context in
            await self.authenticatorRequest(request, context, action: context.parameters.get("action"))
        }
        addBrowserPageRoutes(to: router)
    }

    /// What an authenticator's handlers get: the checked caller, the request method and its form.
    struct AuthenticatorRequest {
        let caller: HaapiCaller
        let method: String
        let action: String?
        let form: [String: String]
        let query: [String: String]
        /// The body of a JSON form (the WebAuthn continue forms post `{"credential": …}`).
        var json: JSONValue? = nil
    }

    private func authenticatorRequest(_ incoming: Request, _ context: ServerRequestContext, action: String?) async -> Response {
        var request = incoming
        let caller: HaapiCaller
        switch await haapiCaller(request, needsSession: true) {
        case .ok(let checked): caller = checked
        case .rejected(let response): return response
        }
        guard let id = context.parameters.get("authenticator"),
            let authenticator = authenticators(for: caller.client).first(where: { $0.id == id })
        else { return problem(caller, Representation.problem(.unexpectedProblem, title: "Unknown authenticator"), status: .notFound) }
        var form: [String: String] = [:]
        var json: JSONValue?
        if request.method == .post, request.headers[.contentType].map(HaapiMediaType.essence(of:)) == FormActionModel.jsonMediaType {
            guard let body = try? await HTTP.bodyText(&request, limit: configuration.security.maxRequestBytes),
                let parsed = try? JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 16)).parse(body), parsed.objectValue != nil
            else { return problem(caller, Representation.problem(.invalidInputProblem, title: "Unreadable JSON body")) }
            json = parsed
        } else if request.method == .post {
            do throws(RequestFailure) {
                form = try await HTTP.form(&request, limit: configuration.security.maxRequestBytes)
            } catch {
                if case .unsupportedMediaType = error, request.headers[.contentLength] == "0" || request.headers[.contentLength] == nil {
                    form = [:]
                } else {
                    return problem(caller, Representation.problem(.invalidInputProblem, title: "Unreadable form"))
                }
            }
        }
        let input = AuthenticatorRequest(caller: caller, method: request.method.rawValue, action: action, form: form, query: HTTP.query(request), json: json)
        switch authenticator.type {
        case .usernamePassword: return await passwordAuthenticator(authenticator, input)
        case .emailOTP: return await emailAuthenticator(authenticator, input)
        case .approval: return await approvalAuthenticator(authenticator, input)
        case .externalBrowser: return await browserAuthenticator(authenticator, input)
        case .passkeys: return await passkeysAuthenticator(authenticator, input)
        }
    }

    func startAuthenticator(_ authenticator: AuthenticatorConfiguration, caller: HaapiCaller) async -> Response {
        let input = AuthenticatorRequest(caller: caller, method: "GET", action: nil, form: [:], query: [:])
        switch authenticator.type {
        case .usernamePassword: return await passwordAuthenticator(authenticator, input)
        case .emailOTP: return await emailAuthenticator(authenticator, input)
        case .approval: return await approvalAuthenticator(authenticator, input)
        case .externalBrowser: return await browserAuthenticator(authenticator, input)
        case .passkeys: return await passkeysAuthenticator(authenticator, input)
        }
    }

    func authenticatorURL(_ authenticator: AuthenticatorConfiguration, _ action: String? = nil) -> String {
        url(Paths.authenticate + "/" + authenticator.id + (action.map { "/" + $0 } ?? ""))
    }

    /// `invalid-input` naming each required field that is empty.
    func missingFields(_ names: [String], in form: [String: String]) -> [(name: String, reason: String, detail: String)] {
        names.filter { (form[$0] ?? "").isEmpty }.map { ($0, "missing", "This field is required") }
    }

    enum PasswordCheck { case success(StoredUser), locked, incorrect }

    /// Verifies a password with lockout: N failures lock the account for a while, and the counter
    /// lives in the database, so a restart does not reset it. Unknown users cost the same hashing time.
    func checkPassword(username: String, password: String) -> PasswordCheck {
        let now = clock()
        if (try? store.lockedUntil(username, now: now)) != nil { return .locked }
        guard let user = try? store.user(named: username) else {
            _ = passwords.verify(password, against: Self.timingDummyHash)
            return .incorrect
        }
        guard passwords.verify(password, against: user.passwordHash) else {
            let failures = (try? store.recordFailedLogin(username, maxFailures: configuration.security.maxFailedLogins,
                                                        lockFor: configuration.security.lockoutSeconds, now: now)) ?? 0
            return failures >= configuration.security.maxFailedLogins ? .locked : .incorrect
        }
        try? store.clearFailedLogins(username)
        return .success(user)
    }

    /// A hash of a random password, so checking an unknown user takes as long as checking a real one.
    static let timingDummyHash = (try? PasswordHasher(iterations: 600_000).hash(UUID().uuidString)) ?? ""

    func passwordCheckResponse(_ caller: HaapiCaller, _ result: PasswordCheck) async -> Response {
        switch result {
        case .success(let user):
            return await completeAuthentication(caller, username: user.username)
        case .locked:
            return problem(caller, Representation.problem(
                .tooManyAttemptsProblem, title: "Too many failed attempts; the account is locked for a while"), status: .badRequest)
        case .incorrect:
            return problem(caller, Representation.problem(.incorrectCredentialsProblem, title: "Incorrect credentials"), status: .badRequest)
        }
    }
}
