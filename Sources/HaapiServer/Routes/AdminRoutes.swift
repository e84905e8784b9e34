import Foundation
import HTTPTypes
import HaapiModel
import Hummingbird

/// The admin endpoints the demo and the tests use (approvals, the e-mail outbox): loopback only, for the
/// server's own `Host`, never from a foreign `Origin`.
struct AdminRoutes: ServerService {
    let address: ServerAddress
    let flows: FlowStore
    let outbox: Outbox
    let clock: @Sendable () -> Date
}

extension AdminRoutes {
    /// Helpers for the CLI and tests: list and approve pending sign-ins, read the outbox.
    ///
    /// Only local tools may call them. The peer address alone is not enough: a web page in the developer's
    /// browser can reach loopback too, by a cross-site form or by DNS rebinding (a name of the attacker's that
    /// resolves to 127.0.0.1). So a request must also name this server in `Host`, and must not carry a
    /// foreign `Origin`: curl and `haapi approve` send neither problem, a browser on another site always does.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(stringLiteral: Paths.adminApprovals)) { request, context in
            if let refusal = self.adminRefusal(request, context) { return refusal }
            let user = HTTP.query(request)["user"]
            let pending = await self.flows.pendingApprovals(username: user, now: self.clock()).map {
                approval -> JSONValue in
                [
                    "id": .string(approval.id), "user": .string(approval.username),
                    "clientId": .string(approval.clientID),
                    "expiresAt": .number(JSONNumber(Int(approval.deadline.timeIntervalSince1970))),
                ]
            }
            return HTTP.json(["approvals": .array(pending)])
        }
        router.post(RouterPath(stringLiteral: Paths.adminApprove)) { incoming, context in
            if let refusal = self.adminRefusal(incoming, context) { return refusal }
            var request = incoming
            guard let form = try? await HTTP.form(&request, limit: 4096), let id = form["approval"], !id.isEmpty else {
                return HTTP.oauthError(
                    "invalid_request",
                    "form parameter approval is required: the id of one pending request (GET \(Paths.adminApprovals))")
            }
            guard await self.flows.approve(approvalID: id, now: self.clock()) else {
                return HTTP.oauthError("not_found", "no pending request has this id", status: .notFound)
            }
            return HTTP.json(["approval": .string(id), "approved": true])
        }
        router.get(RouterPath(stringLiteral: Paths.adminOutbox)) { request, context in
            if let refusal = self.adminRefusal(request, context) { return refusal }
            let messages = await self.outbox.messages.map { message -> JSONValue in
                var object: JSONObject = [
                    "to": .string(message.to), "subject": .string(message.subject), "body": .string(message.body),
                    "sentAt": .number(JSONNumber(Int(message.sentAt.timeIntervalSince1970))),
                ]
                if let username = message.username { object["username"] = .string(username) }
                if let code = message.code { object["code"] = .string(code) }
                return .object(object)
            }
            return HTTP.json(["messages": .array(messages)])
        }
    }

    /// Why an admin request is refused, or nil when it comes from a local tool.
    func adminRefusal(_ request: Request, _ context: ServerRequestContext) -> Response? {
        guard context.isFromLoopback else {
            return HTTP.oauthError("access_denied", "admin endpoints answer loopback only", status: .forbidden)
        }
        guard let host = request.head.authority?.lowercased(), adminAuthorities.contains(host) else {
            return HTTP.oauthError(
                "access_denied", "admin endpoints answer requests addressed to this server's own host only",
                status: .forbidden)
        }
        if let origin = HTTP.header(request, .origin), !adminOrigins.contains(origin.lowercased()) {
            return HTTP.oauthError("access_denied", "admin endpoints refuse cross-origin requests", status: .forbidden)
        }
        if request.headers[values: .secFetchSite].contains(where: { $0 == "cross-site" || $0 == "same-site" }) {
            return HTTP.oauthError("access_denied", "admin endpoints refuse cross-origin requests", status: .forbidden)
        }
        return nil
    }

    /// `Host` values that name this server: the issuer's authority, and the loopback names at the bound port.
    var adminAuthorities: Set<String> {
        var names: Set<String> = []
        if let issuer = URLComponents(string: issuer), let host = issuer.host?.lowercased() {
            let bracketed = host.contains(":") ? "[\(host)]" : host
            names.insert(issuer.port.map { "\(bracketed):\($0)" } ?? bracketed)
        }
        let port = boundPort
        if port > 0 { names.formUnion(["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]) }
        return names
    }

    var adminOrigins: Set<String> {
        Set(adminAuthorities.map { "\(scheme)://\($0)" }).union([issuer.lowercased()])
    }
}

extension DevServer {
    /// Pending "approve on another device" requests of real accounts (of `username` when given), newest first;
    /// what the approving device would list. For in-process callers (the demo, tests).
    public func pendingApprovals(for username: String? = nil) async -> [PendingApproval] {
        await flows.pendingApprovals(username: username, now: clock())
    }

    /// Approves the one request `approvalID` names; false when it is not pending (any more).
    public func approve(approvalID: String) async -> Bool {
        await flows.approve(approvalID: approvalID, now: clock())
    }
}
