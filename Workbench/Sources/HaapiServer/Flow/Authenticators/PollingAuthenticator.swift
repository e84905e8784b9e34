import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird

extension AuthenticatorRoutes {
    /// A `polling` authenticator: with a client operation, first the step that launches the app (BankID with
    /// its auto-start token and launch link, or Encap's activation), then a polling step. The step is pending
    /// until the configured number of polls, or until `haapi approve` approves it (it is listed like an
    /// "approve on another device" request), and failed when the wait (`lifetimes.approvalWait`) runs out. It
    /// proves its configured `user`, or the user an earlier step of the login identified.
    func pollingAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    )
        async throws -> Response
    {
        let caller = input.caller
        let subject = input.session.subject
        guard let user = authenticator.user ?? subject else {
            return stepRefused(caller, .otherUser, asked: input.authenticatorID)
        }
        let now = clock()
        let operation = authenticator.polling?.clientOperation
        let serial = input.step.serial
        switch (input.method, input.action) {
        case ("GET", nil), ("POST", nil):
            if let subject, user != subject { return stepRefused(caller, .otherUser, asked: input.authenticatorID) }
            let deadline = now.addingTimeInterval(TimeInterval(configuration.lifetimes.approvalWait))
            let waiting = StepProgress.polling(
                .init(
                    approval: .init(
                        id: SecureRandom.token(byteCount: 32), username: user, isAccount: true, status: .pending,
                        deadline: deadline),
                    polls: 0))
            guard await flows.updateProgress(input.session.id, serial: serial, { $0 = waiting }) != nil else {
                return stepRefused(caller, .stale, asked: input.authenticatorID)
            }
            if let operation {
                return representation(caller, launchStep(authenticator, operation))
            }
            return representation(
                caller, waitingStep(authenticator, status: "pending", remaining: Int(deadline.timeIntervalSince(now))))
        case ("GET", "poll"), ("POST", "poll"):
            let pollsUntilDone = authenticator.polling?.pollsUntilDone
            // One poll counted per request, in one step of the flow store.
            let polled = await flows.updateProgress(input.session.id, serial: serial) {
                progress -> StepProgress.PollingProgress? in
                guard case .polling(var polling) = progress else { return nil }
                polling.polls += 1
                if let pollsUntilDone, polling.polls >= pollsUntilDone { polling.approval.status = .approved }
                progress = .polling(polling)
                return polling
            }
            guard let polling = polled ?? nil else {
                return problem(
                    caller, Representation.problem(.unexpectedProblem, title: "Nothing to wait for"), rule: .flowState)
            }
            let approval = polling.approval
            let status = approval.status == .approved ? "done" : approval.deadline <= now ? "failed" : "pending"
            return representation(
                caller,
                waitingStep(authenticator, status: status, remaining: Int(approval.deadline.timeIntervalSince(now))))
        case ("POST", "done"):
            guard case .polling(let polling) = input.progress, polling.approval.status == .approved else {
                return problem(
                    caller, Representation.problem(.authenticationFailedProblem, title: "The sign-in was not completed")
                )
            }
            return await completeStep(input, username: polling.approval.username)
        case ("POST", "cancel"), ("GET", "cancel"):
            await flows.updateProgress(input.session.id, serial: serial) { $0 = .idle }
            return representation(caller, Representation.redirection(to: url(Paths.authenticate)))
        default:
            break
        }
        return problem(
            caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
    }

    /// The step that starts the app. Its continue action leads to polling; BankID's error action offers the
    /// app on another device (polling without the launch).
    private func launchStep(
        _ authenticator: AuthenticatorConfiguration, _ operation: PollingConfiguration.ClientOperation
    ) -> JSONValue {
        let poll = authenticatorURL(authenticator, "poll")
        var model: JSONObject = [
            "name": .string(operation.rawValue),
            "arguments": .object(launchArguments(authenticator, operation)),
            "continueActions": [
                Representation.form(
                    kind: "redirect", title: "If the app does not return here, continue", href: poll, method: "GET")
            ],
        ]
        if operation == .bankID {
            model["errorActions"] = [
                Representation.form(
                    kind: "bankid-other-device", title: "Use BankID on another device", href: poll, method: "GET")
            ]
        }
        let title = operation == .bankID ? "Sign in with BankID" : "Activate this device"
        return Representation.step(
            "authentication-step", viewName: "authenticator/\(authenticator.id)/launch/index",
            actions: [
                ["template": "client-operation", "kind": "login", "title": .string(title), "model": .object(model)],
                Representation.form(
                    kind: "cancel", title: "Cancel", href: authenticatorURL(authenticator, "cancel"),
                    actionTitle: "Cancel"),
            ])
    }

    /// The polling step of a configured polling authenticator, in the shape the approval authenticator uses.
    private func waitingStep(_ authenticator: AuthenticatorConfiguration, status: String, remaining: Int) -> JSONValue {
        waitingStep(
            authenticator, status: status, remaining: remaining,
            viewName: "authenticator/\(authenticator.id)/wait/index", waiting: "Waiting for \(authenticator.title)",
            failed: "The sign-in was not completed in time")
    }

    /// What the app is started with. BankID: a fresh auto-start token, and the launch link whose `redirect`
    /// is `null` (BankID returns to the app that opened it); the `redirect` argument names this server's
    /// polling address, percent-encoded, as the vendor's server does. Encap: an activation code and link.
    private func launchArguments(
        _ authenticator: AuthenticatorConfiguration, _ operation: PollingConfiguration.ClientOperation
    ) -> JSONObject {
        switch operation {
        case .bankID:
            let token = UUID().uuidString.lowercased()
            let poll = authenticatorURL(authenticator, "poll")
            return [
                "href": .string("bankid:///?autostarttoken=\(token)&redirect=null"),
                "autoStartToken": .string(token),
                "redirect": .string(poll.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? poll),
            ]
        case .encapAutoActivation:
            let code = String(format: "%08d", Int.random(in: 0..<100_000_000))
            return ["activationCode": .string(code), "href": .string("encap://activate?code=\(code)")]
        }
    }
}
