import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird

/// What the authorize and authenticator services share about a flow: the login a client walks, and how a
/// step hands the flow on once it has proven its user.
protocol FlowCompleting: HaapiGuarding {}

extension FlowCompleting {
    /// The login `client` walks: the one it names, else a choice of its authenticators (of every authenticator
    /// that can begin a login when it lists none).
    func login(for client: ResolvedClient) -> LoginConfiguration {
        configuration.login(for: client.configuration)
    }

    /// The answer to a request of a flow that has expired or never existed (every authenticator's first check).
    func noFlowSession(_ caller: HaapiCaller) -> Response {
        problem(caller, Representation.problem(.unexpectedProblem, title: "No flow session"), rule: .flowExpired)
    }

    /// The answer to a request that does not fit the step the flow is at.
    func stepRefused(_ caller: HaapiCaller, _ refusal: FlowSession.StepRefusal, asked: String) -> Response {
        switch refusal {
        case .loginComplete:
            problem(
                caller,
                Representation.problem(
                    .unexpectedProblem, title: "The sign-in is complete; continue from its last step"),
                rule: .flowState, detail: "\(asked): the login is complete")
        case .notCurrent(let current):
            problem(
                caller, Representation.problem(.unexpectedProblem, title: "This is not the step the sign-in is at"),
                rule: .flowState,
                detail:
                    "\(asked): the flow is at \(current.map { "authenticator \($0)" } ?? "a choice of authenticators")")
        case .stale:
            problem(
                caller,
                Representation.problem(.unexpectedProblem, title: "The sign-in has moved on from this step"),
                rule: .flowState, detail: "\(asked): the flow left this step while the request was handled")
        case .otherUser:
            problem(
                caller,
                Representation.problem(
                    .authenticationFailedProblem,
                    title: "This step was completed for another account than the one signing in"),
                rule: .flowSubject, detail: "\(asked): the step proved another user than the flow's first step")
        }
    }

    /// Ends the step `input` acts on for `username` (who it proved): the flow goes to its next step, or, after
    /// the login's last one, to consent and the code.
    func completeStep(_ input: AuthenticatorRoutes.AuthenticatorRequest, username: String) async -> Response {
        let caller = input.caller
        let now = clock()
        let serial = input.step.serial
        guard
            let result = await flows.update(
                input.session.id, { $0.complete(serial: serial, username: username, now: now) })
        else { return noFlowSession(caller) }
        switch result {
        case .success(.next):
            return representation(caller, Representation.redirection(to: url(Paths.authenticate)))
        case .success(.loginComplete):
            return representation(caller, Representation.redirection(to: url(Paths.authorizeResume)))
        case .failure(let refusal):
            return stepRefused(caller, refusal, asked: input.authenticatorID)
        }
    }
}
