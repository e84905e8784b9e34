import Foundation
import HaapiDriver
import HaapiModel
import Hummingbird

extension AuthenticatorRoutes {
    /// A `recorded` authenticator: the representations a real server sent, served in order with this server's
    /// addresses (`RecordedFlow` says where each action leads). A step is served only once the flow has reached
    /// the one before it, and the end (which signs in the configured user) only after the last one, so no
    /// address skips the recorded steps. A recorded problem is answered as a problem (400).
    func recordedAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    )
        async throws -> Response
    {
        let caller = input.caller
        guard let user = authenticator.user ?? input.session.subject else {
            return stepRefused(caller, .otherUser, asked: input.authenticatorID)
        }
        let flow = RecordedFlow(steps: authenticator.recordedSteps)
        let reached: Int?
        if case .recorded(let progress) = input.progress { reached = progress.node } else { reached = nil }
        let index: Int
        switch input.action {
        case nil:
            index = 0
        case "finish":
            guard reached == flow.steps.count - 1 else { return outOfOrder(caller, authenticator) }
            return await completeStep(input, username: user)
        case "not-recorded":
            return problem(
                caller,
                Representation.problem(
                    .unexpectedProblem, title: "This action was not recorded",
                    messages: [Representation.message("The recording of \(authenticator.title) does not go this way")]),
                rule: .flowState, detail: "\(authenticator.id): an action outside the recording")
        case let action? where action.hasPrefix("r-"):
            guard let wanted = Int(action.dropFirst(2)), flow.steps.indices.contains(wanted) else {
                return problem(
                    caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"),
                    status: .notFound)
            }
            guard let reached, wanted <= reached + 1 else { return outOfOrder(caller, authenticator) }
            index = wanted
        default:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
        let furthest = max(index, index == 0 ? 0 : reached ?? 0)
        let served = StepProgress.recorded(.init(node: furthest, repeats: 0))
        guard await flows.updateProgress(input.session.id, serial: input.step.serial, { $0 = served }) != nil else {
            return stepRefused(caller, .stale, asked: input.authenticatorID)
        }
        let answer = flow.served(index) { target in
            switch target {
            case .step(let next): authenticatorURL(authenticator, "r-\(next)")
            case .finish: authenticatorURL(authenticator, "finish")
            case .notRecorded: authenticatorURL(authenticator, "not-recorded")
            }
        }
        if RecordedFlow.isProblem(answer) {
            return problem(caller, answer, detail: "\(authenticator.id): a recorded problem")
        }
        return representation(caller, answer)
    }

    private func outOfOrder(_ caller: HaapiCaller, _ authenticator: AuthenticatorConfiguration) -> Response {
        problem(
            caller,
            Representation.problem(.unexpectedProblem, title: "This step is not reached yet in the recorded flow"),
            rule: .flowState, detail: "\(authenticator.id): a recorded step out of order")
    }
}
