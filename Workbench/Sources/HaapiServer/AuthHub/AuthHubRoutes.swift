@_spi(Tooling) import AuthHub
import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Hummingbird
import Logging

/// A checked Authentication Hub request: its tenant, the client its bearer token belongs to, its JSON body.
struct AuthHubCall: Sendable {
    let tenant: AuthHubSettings.Tenant
    let clientID: String
    let body: JSONValue
    let request: Request

    func header(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { HTTP.header(request, $0) }
    }

    func string(_ key: String) -> String? { body[key]?.stringValue }
}

/// What a flow step decided.
enum AuthHubStep {
    /// The flow goes on with `action`; `extra` joins `flowState` and `nextaction` in the answer.
    case next(String, JSONObject = JSONObject())
    /// The step failed but may be tried again with the new flow state (a wrong password or code).
    case retry(code: String, message: String, nested: Bool = false)
    /// The flow is over.
    case fail(code: String, message: String, nested: Bool = false)
    /// Every factor is done: AUTH_ALLOWED with an ID token and a session token.
    case allowed
}

/// The Authentication Hub tenants' flow API. It owns the sealed, single-use flow states.
struct AuthHubRoutes: ServerService, PasswordChecking, PasskeyStoring, AccessTokenReading {
    let address: ServerAddress
    let configuration: ServerConfiguration
    let store: ServerStore
    let keys: ServerKeys
    let clients: ClientRegistry
    let outbox: Outbox
    let accessTokens: SealedAccessTokens
    let passwords: PasswordHasher
    let passwordPool: PasswordHashingPool
    let unknownNameAttempts: UnknownNameAttempts
    let clock: @Sendable () -> Date
    /// A tenant's OAuth token endpoint is the server's.
    let tokens: TokenRoutes
    let authHubFlows = AuthHubFlowStore()
}

extension AuthHubRoutes {
    /// The Authentication Hub endpoints under `/<tenant>` (or a tenant's proxy path), when configured.
    func addRoutes(to router: Router<ServerRequestContext>) {
        guard configuration.authHub != nil else { return }
        router.post(":tenant/oauth2/v1/token") { request, context in
            guard self.authHubTenant(context) != nil else {
                return Self.authHubError("8000014", "Unknown tenant", status: .notFound)
            }
            return try await self.tokens.token(request)
        }
        let routes: [(String, AuthHubEndpoint.Path, @Sendable (AuthHubCall) async -> Response)] = [
            ("GET", .brandingSettings, { await self.brandingSettings($0) }),
            ("GET", .authHubPublicKey, { await self.tenantPublicKey($0) }),
            ("POST", .serverNonceGenerator, { await self.nonceGenerator($0) }),
            ("POST", .authEndpoint, { await self.authHubAuthenticate($0) }),
            ("POST", .selectedFactor, { await self.selectedFactor($0) }),
            ("POST", .passwordAuthenticator, { await self.passwordFactor($0) }),
            ("POST", .otpGenerator, { await self.otpGenerator($0) }),
            ("POST", .otpVerifier, { await self.otpVerifier($0) }),
            ("POST", .registerChallengeGenerator, { await self.fidoRegistrationChallenge($0) }),
            ("POST", .registerChallengeVerifier, { await self.fidoRegistrationVerifier($0) }),
            ("POST", .authChallengeGenerator, { await self.fidoAuthenticationChallenge($0) }),
            ("POST", .authChallengeVerifier, { await self.fidoAuthenticationVerifier($0) }),
        ]
        for (method, path, handler) in routes {
            let route = RouterPath(stringLiteral: ":tenant" + path.rawValue)
            let respond: @Sendable (Request, ServerRequestContext) async throws -> Response = { request, context in
                await self.authHubCall(request, context, handler)
            }
            if method == "GET" { router.get(route, use: respond) } else { router.post(route, use: respond) }
        }
    }

    func authHubTenant(_ context: ServerRequestContext) -> AuthHubSettings.Tenant? {
        context.parameters.get("tenant").flatMap { configuration.authHub?.tenant(atPath: $0) }
    }

    /// Resolves the tenant, checks the bearer token (client credentials with the hub scope), reads the body.
    private func authHubCall(
        _ incoming: Request, _ context: ServerRequestContext, _ handler: (AuthHubCall) async throws -> Response
    ) async -> Response {
        guard let settings = configuration.authHub, let tenant = authHubTenant(context) else {
            return Self.authHubError("8000014", "Unknown tenant", status: .notFound)
        }
        let caller: String?
        do { caller = try await bearerClient(incoming, scope: settings.scope) } catch { return error.response }
        guard let clientID = caller else {
            return Self.authHubError("8910004", "Invalid token", status: .unauthorized)
        }
        var request = incoming
        var body = JSONValue.object(JSONObject())
        if request.method == .post {
            guard let text = try? await HTTP.bodyText(&request, limit: configuration.security.maxRequestBytes),
                let parsed = try? JSONParser().parse(Data(text.utf8)), parsed.objectValue != nil
            else { return Self.authHubError("3001036", "Invalid request: the body must be a JSON object") }
            body = parsed
        }
        do {
            return try await handler(AuthHubCall(tenant: tenant, clientID: clientID, body: body, request: request))
        } catch {
            return Self.storeFailure(error)
        }
    }

    /// A database failure: logged, and answered as the hub answers a failure of its own (500), never as
    /// "unknown user" or "no credential".
    static func storeFailure(_ error: any Error) -> Response {
        Logger(label: "haapi.devserver").error("database call failed: \(error)")
        let response = authHubError("8000014", "Failed to process request", status: .internalServerError)
        RequestTrace.refuse(.storeFailure, "the database failed: errorCode 8000014")
        return response
    }

    /// The client of a live, unbound access token that carries `scope`.
    private func bearerClient(_ request: Request, scope: String) async throws(Rejection) -> String? {
        guard let value = HTTP.header(request, .authorization), value.lowercased().hasPrefix("bearer ") else {
            return nil
        }
        let token = String(HTTP.trimmingOWS(value.dropFirst(7)))
        guard let record = try await accessTokenRecord(token), !record.revoked, record.expiresAt > clock(),
            record.jkt == nil,
            record.scope.split(separator: " ").contains(Substring(scope))
        else { return nil }
        return record.clientID
    }

    static func authHubJSON(_ body: JSONObject, status: HTTPResponse.Status = .ok) -> Response {
        HTTP.json(.object(body), status: status)
    }

    /// `{"errorCode": …, "errorMessage": …}`, nested in `data` where the FIDO verifiers put it, plus the new flow
    /// state when the step may be retried.
    static func authHubError(
        _ code: String, _ message: String, status: HTTPResponse.Status = .badRequest, flowState: String? = nil,
        nested: Bool = false
    ) -> Response {
        RequestTrace.refuse(status.code >= 500 ? .serverError : .authHubRefused, "errorCode \(code): \(message)")
        let error: JSONObject = ["errorCode": .string(code), "errorMessage": .string(message)]
        var body: JSONObject = nested ? ["data": .object(error)] : error
        if let flowState { body["flowState"] = .string(flowState) }
        return authHubJSON(body, status: status)
    }

    /// Runs one step of a flow: spends the presented `X-Flow-State`, lets `step` change the flow, and answers
    /// with the next state, or ends the flow.
    func withAuthHubFlow(
        _ call: AuthHubCall, allowed: Set<String>, _ step: (inout AuthHubFlow) async throws -> AuthHubStep
    ) async -> Response {
        guard let state = call.header("X-Flow-State"), !state.isEmpty else {
            return Self.authHubError("0000011", "Not an intended action, proper x-flow-state header must be used")
        }
        var flow: AuthHubFlow
        do throws(AuthHubFlowStateError) {
            flow = try await authHubFlows.take(state, tenant: call.tenant.name, allowed: allowed, now: clock())
        } catch {
            switch error {
            case .invalid: return Self.authHubError("0000010", "Invalid X-Flow-State header")
            case .notIntended:
                return Self.authHubError("0000011", "Not an intended action, proper x-flow-state header must be used")
            }
        }
        let decided: AuthHubStep
        do { decided = try await step(&flow) } catch {
            await authHubFlows.finish(flow.id)
            return Self.storeFailure(error)
        }
        switch decided {
        case .next(let action, let extra):
            flow.nextAction = action
            var body = extra
            body["flowState"] = .string(await authHubFlows.advance(flow))
            body["nextaction"] = .string(action)
            return Self.authHubJSON(body)
        case .retry(let code, let message, let nested):
            flow.failures += 1
            guard flow.failures < configuration.security.maxFailedLogins else {
                await authHubFlows.finish(flow.id)
                return Self.authHubError("0000050", "Number of attempts exceeded", nested: nested)
            }
            return Self.authHubError(code, message, flowState: await authHubFlows.advance(flow), nested: nested)
        case .fail(let code, let message, let nested):
            await authHubFlows.finish(flow.id)
            return Self.authHubError(code, message, nested: nested)
        case .allowed:
            await authHubFlows.finish(flow.id)
            return authHubAllowed(flow)
        }
    }

    /// AUTH_ALLOWED: an ID token for the user (issuer `<issuer>/<tenant>`, audience the calling client) and a session token.
    private func authHubAllowed(_ flow: AuthHubFlow) -> Response {
        let now = clock()
        let claims: JSONObject = [
            "iss": .string(issuer + "/" + flow.tenant), "sub": .string(flow.username ?? flow.subject),
            "aud": .string(flow.clientID),
            "iat": .number(JSONNumber(Int(now.timeIntervalSince1970))),
            "exp": .number(JSONNumber(Int(now.timeIntervalSince1970) + configuration.lifetimes.idToken)),
            "amr": .array(flow.methods.map { .string($0) }),
        ]
        guard let idToken = try? keys.sign(claims: claims) else {
            return Self.authHubError("8000014", "Failed to process request", status: .internalServerError)
        }
        return Self.authHubJSON([
            "nextaction": "AUTH_ALLOWED", "id_token": .string(idToken),
            "session_token": .string(SecureRandom.token(byteCount: 32)),
        ])
    }
}
