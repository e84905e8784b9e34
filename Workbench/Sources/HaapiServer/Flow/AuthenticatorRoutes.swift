import Foundation
@_spi(Tooling) import HaapiModel
import Hummingbird
import Logging

/// The HAAPI authenticators (password, e-mail code, approval, browser, passkeys, and the configured form,
/// polling and recorded ones) and the browser page.
struct AuthenticatorRoutes: ServerService, FlowCompleting, PasswordChecking, PasskeyStoring {
    let address: ServerAddress
    let configuration: ServerConfiguration
    let store: ServerStore
    let clients: ClientRegistry
    let dpop: DPoPVerifier
    let nonces: DPoPNonceService
    let accessTokens: SealedAccessTokens
    let flows: FlowStore
    let outbox: Outbox
    let passwords: PasswordHasher
    let passwordPool: PasswordHashingPool
    let unknownNameAttempts: UnknownNameAttempts
    /// The forms' `accept` patterns, compiled at start.
    let acceptPatterns: AcceptPatterns
    /// The recorded authenticators' graphs, read at start.
    let recordings: [String: RecordedLogin]
    let clock: @Sendable () -> Date
    /// Binds the browser page's form to the browser that loaded it.
    let browserForms = BrowserFormGuard()
}

extension AuthenticatorRoutes {
    func addRoutes(to router: Router<ServerRequestContext>) {
        let base = Paths.authenticate
        router.get(RouterPath(stringLiteral: base + "/:authenticator")) { request, context in
            try await self.authenticatorRequest(request, context, action: nil)
        }
        router.post(RouterPath(stringLiteral: base + "/:authenticator")) { request, context in
            try await self.authenticatorRequest(request, context, action: nil)
        }
        router.get(RouterPath(stringLiteral: base + "/:authenticator/:action")) { request, context in
            try await self.authenticatorRequest(request, context, action: context.parameters.get("action"))
        }
        router.post(RouterPath(stringLiteral: base + "/:authenticator/:action")) { request, context in
            try await self.authenticatorRequest(request, context, action: context.parameters.get("action"))
        }
        addBrowserPageRoutes(to: router)
    }

    /// What an authenticator's handlers get: the checked caller, the flow and the step the request acts on
    /// (which is this authenticator's: no handler sees another's progress), the request method and its form.
    struct AuthenticatorRequest {
        let caller: HaapiCaller
        /// The flow as it was once the request was let in.
        let session: FlowSession
        let step: FlowStep
        let authenticatorID: String
        let method: String
        let action: String?
        var form: [String: String] = [:]
        var query: [String: String] = [:]
        /// The body of a JSON form (the WebAuthn continue forms post `{"credential": …}`).
        var json: JSONValue? = nil

        /// The progress of the step the request acts on.
        var progress: StepProgress { step.progress }
    }

    private func authenticatorRequest(
        _ incoming: Request, _ context: ServerRequestContext, action: String?
    ) async throws(Rejection) -> Response {
        var request = incoming
        let caller: HaapiCaller = try await haapiCaller(request, needsSession: true)
        let id = context.parameters.get("authenticator") ?? ""
        var form: [String: String] = [:]
        var json: JSONValue?
        if request.method == .post,
            HTTP.header(request, .contentType).map(HaapiMediaType.essence(of:)) == FormActionModel.jsonMediaType
        {
            guard let body = try? await HTTP.bodyText(&request, limit: configuration.security.maxRequestBytes),
                let parsed = try? JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 16)).parse(body),
                parsed.objectValue != nil
            else { return problem(caller, Representation.problem(.invalidInputProblem, title: "Unreadable JSON body")) }
            json = parsed
        } else if request.method == .post {
            do throws(RequestFailure) {
                form = try await HTTP.form(&request, limit: configuration.security.maxRequestBytes)
            } catch {
                if case .unsupportedMediaType = error,
                    [nil, "0"].contains(HTTP.header(request, .contentLength))
                {
                    form = [:]
                } else {
                    return problem(caller, Representation.problem(.invalidInputProblem, title: "Unreadable form"))
                }
            }
        }
        return await enter(
            id, caller: caller, method: request.method.rawValue, action: action, form: form, query: HTTP.query(request),
            json: json)
    }

    /// The first step of authenticator `id`, when the flow is at it or may start it.
    func begin(_ id: String, caller: HaapiCaller) async -> Response {
        await enter(id, caller: caller, method: "GET", action: nil, form: [:], query: [:], json: nil)
    }

    /// Lets a request act on authenticator `id` only when the flow is at its step, or when it starts an
    /// authenticator that begins an option of the choice the flow is at (then the flow moves there first).
    /// Anything else is refused with `haapi.flow-state`, and changes nothing.
    private func enter(
        _ id: String, caller: HaapiCaller, method: String, action: String?, form: [String: String],
        query: [String: String], json: JSONValue?
    ) async -> Response {
        guard let flowID = caller.session?.id else { return noFlowSession(caller) }
        guard let authenticator = configuration.authenticators.first(where: { $0.id == id }),
            caller.session?.login.authenticatorIDs.contains(id) == true
        else {
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unknown authenticator"), status: .notFound)
        }
        let starting = method == "GET" && action == nil
        guard
            let (access, session) = await flows.update(
                flowID, { flow in (flow.step(for: id, starting: starting), flow) })
        else { return noFlowSession(caller) }
        let step: FlowStep
        switch access {
        case .success(let current): step = current
        case .failure(let refusal):
            return stepRefused(caller, refusal, asked: "\(method) \(id)\(action.map { "/" + $0 } ?? "")")
        }
        let input = AuthenticatorRequest(
            caller: caller, session: session, step: step, authenticatorID: id, method: method, action: action,
            form: form, query: query, json: json)
        return await run(authenticator, input)
    }

    /// Runs the authenticator's handler. A failure of the database is logged and answered as the server's
    /// own problem (500), never as a wrong password or an unknown account.
    private func run(_ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest) async -> Response {
        do {
            switch authenticator.type {
            case .usernamePassword: return try await passwordAuthenticator(authenticator, input)
            case .emailOTP: return try await emailAuthenticator(authenticator, input)
            case .approval: return try await approvalAuthenticator(authenticator, input)
            case .externalBrowser: return try await browserAuthenticator(authenticator, input)
            case .passkeys: return try await passkeysAuthenticator(authenticator, input)
            case .form: return try await formAuthenticator(authenticator, input)
            case .polling: return try await pollingAuthenticator(authenticator, input)
            case .recorded: return try await recordedAuthenticator(authenticator, input)
            }
        } catch {
            Logger(label: "haapi.devserver").error("authenticator \(authenticator.id) failed: \(error)")
            return problem(
                input.caller,
                Representation.problem(.unexpectedProblem, title: "The server could not complete this step"),
                status: .internalServerError)
        }
    }

    func authenticatorURL(_ authenticator: AuthenticatorConfiguration, _ action: String? = nil) -> String {
        url(Paths.authenticate + "/" + authenticator.id + (action.map { "/" + $0 } ?? ""))
    }

    /// `invalid-input` naming each required field that is empty.
    func missingFields(_ names: [String], in form: [String: String]) -> [(name: String, reason: String, detail: String)]
    {
        names.filter { (form[$0] ?? "").isEmpty }.map { ($0, "missing", "This field is required") }
    }

    func passwordCheckResponse(_ input: AuthenticatorRequest, _ result: PasswordCheck) async -> Response {
        let caller = input.caller
        switch result {
        case .success(let user):
            return await completeStep(input, username: user.username)
        case .locked:
            return problem(
                caller,
                Representation.problem(
                    .tooManyAttemptsProblem, title: "Too many failed attempts; the account is locked for a while"),
                status: .badRequest)
        case .incorrect:
            return problem(
                caller, Representation.problem(.incorrectCredentialsProblem, title: "Incorrect credentials"),
                status: .badRequest)
        case .busy:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "The server is busy; try again in a moment"),
                status: .serviceUnavailable)
        }
    }
}
