import Foundation
import HaapiDriver
import HaapiModel
import Hummingbird

extension AuthenticatorRoutes {
    /// The longest value a configured form takes in one field.
    static let maxFormValueBytes = 4096

    /// A `form` authenticator: the configured steps in order, each an `authentication-step` with one form
    /// posting to `step-K`. A submission is checked against its step (no field it did not ask for, every value
    /// at most 4 KiB, each field's `accept` pattern) and only the step the flow is at is taken, so a form sent
    /// twice is refused. After the last step the flow signs in the configured user, or the one a field named
    /// `username` names.
    func formAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws
        -> Response
    {
        let caller = input.caller
        guard let session = caller.session else {
            return noFlowSession(caller)
        }
        let steps = authenticator.formSteps
        switch (input.method, input.action) {
        case ("GET", nil):
            await flows.update(session.id) {
                $0.custom = .init(authenticatorID: authenticator.id, step: 0, username: nil, polls: 0)
            }
            return representation(caller, formStep(authenticator, at: 0))
        case ("POST", let action?) where action.hasPrefix("step-"):
            guard let index = Int(action.dropFirst("step-".count)), steps.indices.contains(index) else { break }
            guard let progress = session.custom, progress.authenticatorID == authenticator.id, progress.step == index
            else {
                return problem(
                    caller,
                    Representation.problem(
                        .unexpectedProblem, title: "This step is not the one the flow is at; it was sent already"),
                    rule: .flowState, detail: "\(authenticator.id) step \(index) submitted out of order")
            }
            let invalid = invalidFields(input.form, for: steps[index])
            guard invalid.isEmpty else { return problem(caller, Representation.invalidInput(invalid)) }
            let typedUser = steps[index].fields.contains { $0.name == "username" } ? input.form["username"] : nil
            let next = index + 1
            await flows.update(session.id) { flow in
                flow.custom?.step = next
                if let typedUser { flow.custom?.username = typedUser }
            }
            if steps.indices.contains(next) { return representation(caller, formStep(authenticator, at: next)) }
            let username = typedUser ?? progress.username ?? authenticator.user ?? ""
            guard try await store.user(named: username) != nil else {
                return problem(
                    caller, Representation.problem(.incorrectCredentialsProblem, title: "Incorrect credentials"))
            }
            return await completeAuthentication(caller, username: username)
        default:
            break
        }
        return problem(
            caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
    }

    /// The fields a submission gets wrong, each named with why: not asked for, too long, or not accepted.
    func invalidFields(
        _ form: [String: String], for step: FormStepConfiguration
    ) -> [(
        name: String, reason: String, detail: String
    )] {
        let asked = Set(step.fields.map(\.name))
        var invalid = form.keys.filter { !asked.contains($0) }.sorted().map {
            (name: $0, reason: "unexpected", detail: "This step does not ask for this field")
        }
        for field in step.fields {
            let value = form[field.name]
            if let value, value.utf8.count > Self.maxFormValueBytes {
                invalid.append((field.name, "invalidValue", "At most \(Self.maxFormValueBytes) bytes"))
            } else if !field.accepts(value) {
                let missing = (value ?? "").isEmpty && field.accept == nil
                invalid.append(
                    missing
                        ? (field.name, "missing", "This field is required")
                        : (field.name, "invalidValue", step.invalidMessage ?? "This value is not accepted"))
            }
        }
        return invalid
    }

    private func formStep(_ authenticator: AuthenticatorConfiguration, at index: Int) -> JSONValue {
        let step = authenticator.formSteps[index]
        let fields = step.fields.map { field -> JSONValue in
            var extra: JSONObject = [:]
            if !field.options.isEmpty {
                extra["options"] = .array(
                    field.options.map { ["label": .string($0.label), "value": .string($0.value)] })
            }
            return Representation.field(
                field.name, type: field.type.rawValue, label: field.label, value: field.value,
                placeholder: field.placeholder, extra: extra)
        }
        return Representation.step(
            "authentication-step", viewName: "authenticator/\(authenticator.id)/step-\(index)",
            actions: [
                Representation.form(
                    kind: "login", title: step.title, href: authenticatorURL(authenticator, "step-\(index)"),
                    fields: fields, actionTitle: step.submit ?? "Continue")
            ],
            messages: step.messages.map { Representation.message($0) })
    }
}
