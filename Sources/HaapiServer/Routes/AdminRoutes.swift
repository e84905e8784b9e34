import Foundation
import HaapiModel
import Hummingbird

extension DevServer {
    /// Loopback-only helpers for the CLI and tests: approve a pending sign-in, read the outbox.
    func addAdminRoutes(to router: Router<ServerRequestContext>) {
        router.post(RouterPath(stringLiteral: Paths.adminApprove)) { incoming, context in
            guard context.isFromLoopback else { return HTTP.oauthError("access_denied", "admin endpoints answer loopback only", status: .forbidden) }
            var request = incoming
            guard let form = try? await HTTP.form(&request, limit: 4096), let user = form["user"], !user.isEmpty else {
                return HTTP.oauthError("invalid_request", "form parameter user is required")
            }
            let approved = await self.flows.approve(username: user, now: self.clock())
            return HTTP.json(["user": .string(user), "approved": .number(JSONNumber(approved))], status: approved > 0 ? .ok : .notFound)
        }
        router.get(RouterPath(stringLiteral: Paths.adminOutbox)) { _, context in
            guard context.isFromLoopback else { return HTTP.oauthError("access_denied", "admin endpoints answer loopback only", status: .forbidden) }
            let messages = await self.outbox.messages.map { message -> JSONValue in
                var object: JSONObject = ["to": .string(message.to), "subject": .string(message.subject), "body": .string(message.body),
                                          "sentAt": .number(JSONNumber(Int(message.sentAt.timeIntervalSince1970)))]
                if let username = message.username { object["username"] = .string(username) }
                if let code = message.code { object["code"] = .string(code) }
                return .object(object)
            }
            return HTTP.json(["messages": .array(messages)])
        }
    }
}
