import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird

extension AuthenticatorRoutes {
    /// A `recorded` authenticator: the representations a real server sent, served with this server's
    /// addresses (`RecordedLogin` says where each action leads). A step is served only when an action of the
    /// step the flow is at leads to it, and the end (which signs in the configured user, or the login's) only
    /// from a step whose action led there, so no address skips the recording. An action nobody recorded is
    /// answered with a problem that names it and says how to record it; a recorded problem is answered as a
    /// problem (400).
    func recordedAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    )
        async throws -> Response
    {
        let caller = input.caller
        guard let user = authenticator.user ?? input.session.subject else {
            return stepRefused(caller, .otherUser, asked: input.authenticatorID)
        }
        guard let recording = recordings[authenticator.id] else {
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "This recording cannot be served"),
                status: .internalServerError)
        }
        let at: StepProgress.RecordedProgress?
        if case .recorded(let progress) = input.progress { at = progress } else { at = nil }
        if let at, recording.steps.indices.contains(at.node) {
            // What the step asked for and declared secret is masked in the log and the inspector.
            RequestTrace.secretFields(Self.passwordFields(in: recording.steps[at.node].representation))
        }
        switch input.action {
        case nil:
            return await serveRecorded(authenticator, recording, step: 0, repeats: 1, input)
        case "finish":
            guard let at, recording.leads(from: at.node, repeats: at.repeats, to: .finish) else {
                return outOfOrder(caller, authenticator)
            }
            return await completeStep(input, username: user)
        case "not-recorded":
            return notRecorded(caller, authenticator, recording, at: input.query["at"])
        case let action? where action.hasPrefix("r-"):
            guard let wanted = Int(action.dropFirst(2)), recording.steps.indices.contains(wanted) else {
                return problem(
                    caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"),
                    status: .notFound)
            }
            guard let at, recording.leads(from: at.node, repeats: at.repeats, to: .step(wanted)) else {
                return outOfOrder(caller, authenticator)
            }
            let repeats = wanted == at.node ? at.repeats + 1 : 1
            return await serveRecorded(authenticator, recording, step: wanted, repeats: repeats, input)
        default:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
    }

    private func serveRecorded(
        _ authenticator: AuthenticatorConfiguration, _ recording: RecordedLogin, step index: Int, repeats: Int,
        _ input: AuthenticatorRequest
    ) async -> Response {
        let caller = input.caller
        let served = StepProgress.recorded(.init(node: index, repeats: repeats))
        guard await flows.updateProgress(input.session.id, serial: input.step.serial, { $0 = served }) != nil else {
            return stepRefused(caller, .stale, asked: input.authenticatorID)
        }
        let answer = recording.served(
            index, repeats: repeats,
            address: { target in
                switch target {
                case .step(let next): authenticatorURL(authenticator, "r-\(next)")
                case .finish: authenticatorURL(authenticator, "finish")
                }
            },
            notRecorded: { location in
                authenticatorURL(authenticator, "not-recorded") + "?"
                    + FormURLEncoding.encode([("at", "\(index):\(location)")])
            })
        if RecordedLogin.isProblem(answer) {
            return problem(caller, answer, detail: "\(authenticator.id): a recorded problem")
        }
        return representation(caller, answer)
    }

    /// The problem for an action the recording does not have: which one, and how to add it.
    private func notRecorded(
        _ caller: HaapiCaller, _ authenticator: AuthenticatorConfiguration, _ recording: RecordedLogin,
        at place: String?
    ) -> Response {
        var named = "This action"
        if let place, let colon = place.firstIndex(of: ":"), let index = Int(place[..<colon]),
            let location = ActionLocation(String(place[place.index(after: colon)...])),
            let title = recording.title(of: location, in: index)
        {
            named = "“\(title)”"
        }
        return problem(
            caller,
            Representation.problem(
                .unexpectedProblem, title: "\(named) was not recorded",
                messages: [
                    Representation.message(
                        "The recording of \(authenticator.title) does not go this way. To add it, record a login that takes it into the same file: haapi login --server <the server> --client-id <the app> --record <this configuration file>"
                    )
                ]),
            rule: .flowState, detail: "\(authenticator.id): an action outside the recording (\(place ?? "unnamed"))")
    }

    private func outOfOrder(_ caller: HaapiCaller, _ authenticator: AuthenticatorConfiguration) -> Response {
        problem(
            caller,
            Representation.problem(.unexpectedProblem, title: "This step is not reached yet in the recorded flow"),
            rule: .flowState, detail: "\(authenticator.id): a recorded step out of order")
    }

    /// The names of the fields a representation declares of type `password`, at any depth.
    static func passwordFields(in value: JSONValue) -> [String] {
        switch value {
        case .object(let object):
            let own = object["type"] == "password" ? [object["name"]?.stringValue].compactMap { $0 } : []
            return own + object.flatMap { passwordFields(in: $0.value) }
        case .array(let items): return items.flatMap(passwordFields(in:))
        default: return []
        }
    }
}
