import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird

extension AuthenticatorRoutes {
    /// "Approve on another device": a polling step that turns done when someone approves through the
    /// admin endpoint (`haapi approve`, which names this one request), and failed when the wait runs out. As a
    /// later step of a login, the request is for the user an earlier step identified, without asking a name.
    func approvalAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws -> Response {
        let caller = input.caller
        let now = clock()
        let waiting: StepProgress.Approval?
        if case .approval(let approval) = input.progress { waiting = approval } else { waiting = nil }
        switch (input.method, input.action) {
        case ("GET", nil):
            if let subject = input.session.subject {
                return try await requestApproval(authenticator, input, username: subject, now: now)
            }
            return representation(
                caller,
                Representation.step(
                    "authentication-step", viewName: "authenticator/approve/enter-username/index",
                    actions: [
                        Representation.form(
                            kind: "login", title: "Approve on another device", href: authenticatorURL(authenticator),
                            fields: [Representation.field("userName", type: "username", label: "Username")],
                            actionTitle: "Send request")
                    ]))
        case ("POST", nil):
            let missing = missingFields(["userName"], in: input.form)
            guard missing.isEmpty else { return problem(caller, Representation.invalidInput(missing)) }
            let username = input.form["userName"] ?? ""
            guard username.count <= Self.maxUsernameLength else {
                return problem(caller, Representation.invalidInput([("userName", "invalidValue", "Too long")]))
            }
            if let subject = input.session.subject, username != subject {
                return stepRefused(caller, .otherUser, asked: input.authenticatorID)
            }
            return try await requestApproval(authenticator, input, username: username, now: now)
        case ("GET", "poll"):
            guard let waiting else {
                return problem(
                    caller, Representation.problem(.unexpectedProblem, title: "Nothing to wait for"), rule: .flowState)
            }
            switch waiting.status {
            case .approved:
                return representation(caller, pollingStep(authenticator, status: "done", remaining: 0))
            case .pending where waiting.deadline <= now:
                return representation(caller, pollingStep(authenticator, status: "failed", remaining: 0))
            case .pending:
                return representation(
                    caller,
                    pollingStep(
                        authenticator, status: "pending", remaining: Int(waiting.deadline.timeIntervalSince(now))))
            }
        case ("POST", "done"):
            guard let waiting, waiting.status == .approved else {
                return problem(
                    caller, Representation.problem(.authenticationFailedProblem, title: "The request was not approved"))
            }
            return await completeStep(input, username: waiting.username)
        case ("POST", "cancel"):
            await flows.updateProgress(input.session.id, serial: input.step.serial) { $0 = .idle }
            return representation(caller, Representation.redirection(to: url(Paths.authenticate)))
        default:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
    }

    /// A new request for `username`, this step's only one. An unknown name waits like a real one (and runs
    /// out): the answer does not tell which accounts exist.
    private func requestApproval(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest, username: String, now: Date
    ) async throws -> Response {
        let isAccount = try await store.user(named: username) != nil
        let deadline = now.addingTimeInterval(TimeInterval(configuration.lifetimes.approvalWait))
        let approval = StepProgress.Approval(
            id: SecureRandom.token(byteCount: 32), username: username, isAccount: isAccount, status: .pending,
            deadline: deadline)
        guard
            await flows.updateProgress(input.session.id, serial: input.step.serial, { $0 = .approval(approval) })
                != nil
        else { return stepRefused(input.caller, .stale, asked: input.authenticatorID) }
        return representation(
            input.caller,
            pollingStep(authenticator, status: "pending", remaining: Int(deadline.timeIntervalSince(now))))
    }

    private func pollingStep(_ authenticator: AuthenticatorConfiguration, status: String, remaining: Int) -> JSONValue {
        waitingStep(
            authenticator, status: status, remaining: remaining, viewName: "authenticator/approve/wait/index",
            waiting: "Approve the sign-in on your other device", failed: "Nobody approved the request in time")
    }

    /// A polling step of `authenticator`: `pending` with its poll and cancel actions, `done` with the form
    /// that finishes the sign-in (`done`), `failed` with a way to try again. The approval and the configured
    /// polling authenticators share it.
    func waitingStep(
        _ authenticator: AuthenticatorConfiguration, status: String, remaining: Int, viewName: String,
        waiting: String, failed: String
    ) -> JSONValue {
        let properties: JSONValue = [
            "status": .string(status),
            "interval": .string(String(configuration.security.pollingIntervalMilliseconds)),
            "maxWaitTime": .string(String(configuration.lifetimes.approvalWait)),
            "maxWaitRemainingTime": .string(String(max(remaining, 0))),
        ]
        let actions: [JSONValue]
        var messages: [JSONValue] = []
        switch status {
        case "done":
            actions = [
                Representation.form(
                    kind: "redirect", href: authenticatorURL(authenticator, "done"),
                    fields: [Representation.field("moveOn", type: "hidden", value: "true")])
            ]
        case "failed":
            actions = [
                Representation.form(
                    kind: "continue", title: "Try again", href: authenticatorURL(authenticator), method: "GET")
            ]
            messages = [Representation.message(failed, ["error"])]
        default:
            actions = [
                Representation.form(kind: "poll", href: authenticatorURL(authenticator, "poll"), method: "GET"),
                Representation.form(
                    kind: "cancel", title: "Cancel", href: authenticatorURL(authenticator, "cancel"),
                    actionTitle: "Cancel"),
            ]
            messages = [Representation.message(waiting)]
        }
        return Representation.step(
            "polling-step", viewName: viewName, actions: actions, messages: messages, properties: properties)
    }
}
