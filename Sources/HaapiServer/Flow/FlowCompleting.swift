import Foundation
import HaapiDriver
import HaapiModel
import Hummingbird

/// What the authorize and authenticator services share about a flow: which authenticators a client may use,
/// and how an authenticator hands the flow back once it knows the user.
protocol FlowCompleting: HaapiGuarding {}

extension FlowCompleting {
    func authenticators(for client: ResolvedClient) -> [AuthenticatorConfiguration] {
        let allowed = client.configuration.authenticators
        return configuration.authenticators.filter { allowed.isEmpty || allowed.contains($0.id) }
    }

    /// The answer to a request of a flow that has expired or never existed (every authenticator's first check).
    func noFlowSession(_ caller: HaapiCaller) -> Response {
        problem(caller, Representation.problem(.unexpectedProblem, title: "No flow session"), rule: .flowExpired)
    }

    /// Called by an authenticator once it knows who the user is.
    func completeAuthentication(_ caller: HaapiCaller, username: String) async -> Response {
        guard let session = caller.session else {
            return noFlowSession(caller)
        }
        let now = clock()
        await flows.update(session.id) { flow in
            flow.username = username
            flow.authTime = now
            flow.email = nil
            flow.approval = nil
            flow.browser = nil
            flow.custom = nil
        }
        return representation(caller, Representation.redirection(to: url(Paths.authorizeResume)))
    }
}
