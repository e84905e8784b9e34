import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird

/// The admin endpoints the demo and the tests use (approvals, the e-mail outbox): loopback only, for the
/// server's own `Host`, never from a foreign `Origin`.
struct AdminRoutes: ServerService, LocalOnly {
    let address: ServerAddress
    let flows: FlowStore
    let outbox: Outbox
    let clock: @Sendable () -> Date
}

extension AdminRoutes {
    /// Helpers for the CLI and tests: list and approve pending sign-ins, read the outbox. Only local tools may
    /// call them (``LocalOnly``).
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(stringLiteral: Paths.adminApprovals)) { request, context in
            if let refusal = self.localRefusal(request, context) { return refusal }
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
            if let refusal = self.localRefusal(incoming, context) { return refusal }
            var request = incoming
            guard let form = try? await HTTP.form(&request, limit: 4096), let id = form["approval"], !id.isEmpty else {
                return HTTP.oauthError(
                    "invalid_request",
                    "form parameter approval is required: the id of one pending request (GET \(Paths.adminApprovals))",
                    rule: .invalidRequest)
            }
            guard await self.flows.approve(approvalID: id, now: self.clock()) else {
                return HTTP.oauthError(
                    "not_found", "no pending request has this id", rule: .flowState,
                    detail: "approval: no pending request has this id", status: .notFound)
            }
            return HTTP.json(["approval": .string(id), "approved": true])
        }
        router.get(RouterPath(stringLiteral: Paths.adminOutbox)) { request, context in
            if let refusal = self.localRefusal(request, context) { return refusal }
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
