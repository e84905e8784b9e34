import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird

/// Who is calling a HAAPI endpoint, once the token, the proof and the session have been checked.
struct HaapiCaller: Sendable {
    let client: ResolvedClient
    let jkt: String
    let session: FlowSession?
    /// With `replaysFinished`: the answer the flow of the request's Session-Id ended with, for this client and key.
    var finishedAnswer: JSONValue? = nil
    /// Headers every response to this caller carries (the current DPoP nonce in nonce mode).
    let headers: HTTPFields
}

/// The HAAPI request guard, shared by the authorize and authenticator services: the HAAPI token, its DPoP
/// proof and the flow session, checked the same way for every HAAPI endpoint.
protocol HaapiGuarding: AccessTokenReading, DPoPGated {
    var configuration: ServerConfiguration { get }
    var clients: ClientRegistry { get }
    var flows: FlowStore { get }
}

extension HaapiGuarding {
    /// Checks a HAAPI request: `Accept: application/vnd.auth+json`, `Authorization: DPoP <HAAPI token>`,
    /// a DPoP proof for this request with `ath` (and the nonce in nonce mode) signed by the token's key,
    /// and, when `needsSession`, a `Session-Id` whose flow belongs to that key.
    func haapiCaller(
        _ request: Request, needsSession: Bool, replaysFinished: Bool = false
    ) async throws(Rejection) -> HaapiCaller {
        let now = clock()
        guard let accept = HTTP.header(request, .accept), accept.lowercased().contains(HaapiMediaType.representation)
        else {
            throw Rejection(
                HTTP.oauthError(
                    "invalid_request", "HAAPI requests must accept \(HaapiMediaType.representation)",
                    rule: .haapiAccept,
                    detail:
                        "Accept: expected \(HaapiMediaType.representation), got \(HTTP.header(request, .accept) ?? "none")",
                    status: .notAcceptable))
        }
        guard let authorization = HTTP.header(request, .authorization), HTTP.hasAuthScheme(authorization, "dpop") else {
            let scheme = HTTP.header(request, .authorization).map { String($0.prefix { $0 != " " }) }
            throw Rejection(
                resourceChallenge(
                    "invalid_token", "a HAAPI access token with the DPoP scheme is required", rule: .haapiTokenMissing,
                    detail:
                        "Authorization: expected DPoP <HAAPI token>, got \(scheme.map { "the \($0) scheme" } ?? "none")"
                ))
        }
        let token = String(HTTP.trimmingOWS(authorization.dropFirst(5)))
        guard let record = try await accessTokenRecord(token), !record.revoked, record.expiresAt > now,
            record.scope == Scopes.haapi,
            let jkt = record.jkt, let client = try await clients.client(id: record.clientID)
        else {
            throw Rejection(
                resourceChallenge(
                    "invalid_token", "the HAAPI access token is invalid, expired or revoked", rule: .haapiTokenInvalid,
                    detail: "token \(MaskedText.token(token))"))
        }
        _ = try await checkProof(request, at: .haapi, client: client, accessToken: token, boundJKT: jkt, required: true)
        let headers = await nonceHeaders(for: client)
        var session: FlowSession?
        if let id = HTTP.header(request, .sessionID) {
            if replaysFinished, await flows.session(id, now: now) == nil,
                let done = await flows.finishedFlow(id, now: now), done.jkt == jkt, done.clientID == client.id
            {
                return HaapiCaller(
                    client: client, jkt: jkt, session: nil, finishedAnswer: done.answer, headers: headers)
            }
            guard let found = await flows.session(id, now: now) else {
                throw Rejection(
                    HTTP.problem(
                        Representation.problem(
                            .unexpectedProblem, title: "The flow has expired or does not exist; start again"),
                        rule: .flowExpired, detail: "Session-Id \(MaskedText.token(id)) names no current flow",
                        status: .badRequest, headers: headers))
            }
            guard found.jkt == jkt, found.clientID == client.id else {
                throw Rejection(
                    HTTP.problem(
                        Representation.problem(
                            .sessionAndAccessTokenMismatchProblem,
                            title: "The session does not belong to this access token"),
                        rule: .sessionMismatch,
                        detail: found.clientID == client.id
                            ? "the flow was started with another DPoP key"
                            : "the flow belongs to client \(found.clientID), the token to \(client.id)",
                        status: .badRequest, headers: headers))
            }
            session = found
        } else if needsSession {
            throw Rejection(
                HTTP.problem(
                    Representation.problem(.unexpectedProblem, title: "No flow session; send the Session-Id header"),
                    rule: .sessionMissing, detail: "Session-Id: expected the flow's id, got none",
                    status: .badRequest, headers: headers))
        }
        return HaapiCaller(client: client, jkt: jkt, session: session, headers: headers)
    }

    func representation(_ caller: HaapiCaller, _ value: JSONValue, setSession: String? = nil) -> Response {
        var headers = caller.headers
        if let setSession { headers[.setSessionID] = setSession }
        return HTTP.representation(value, headers: headers)
    }

    /// A problem for `caller`; without `rule`, the rule its problem type stands for.
    func problem(
        _ caller: HaapiCaller, _ value: JSONValue, rule: Rule? = nil, detail: String? = nil,
        status: HTTPResponse.Status = .badRequest
    ) -> Response {
        HTTP.problem(
            value, rule: rule ?? Rule(problem: value, status: status), detail: detail, status: status,
            headers: caller.headers)
    }
}
