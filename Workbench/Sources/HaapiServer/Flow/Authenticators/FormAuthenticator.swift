import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird

extension AuthenticatorRoutes {
    /// The longest value a configured form takes in one field.
    static let maxFormValueBytes = 4096

    /// A `form` authenticator: the configured steps in order, each an `authentication-step` with one form
    /// posting to `step-K`. A submission is checked against its step (no field it did not ask for, every value
    /// at most 4 KiB, each field's `accept` pattern) and only the step the flow is at is taken, so a form sent
    /// twice is refused; a refused submission leaves the flow at its step.
    ///
    /// Who the form proves: the user a `username` field names, else its configured `user`, else the user an
    /// earlier step of the login identified. A `password` field without `accept` is that user's password,
    /// checked at its step with the password authenticator's lockout and words (a wrong password and an
    /// unknown user read the same). A form that checks no password refuses an unknown `username` at its step.
    func formAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws
        -> Response
    {
        let caller = input.caller
        let steps = authenticator.formSteps
        let subject = input.session.subject
        switch (input.method, input.action) {
        case ("GET", nil):
            if let user = authenticator.user, let subject, user != subject {
                return stepRefused(caller, .otherUser, asked: input.authenticatorID)
            }
            let fresh = StepProgress.form(.init(step: 0, username: nil))
            guard await flows.updateProgress(input.session.id, serial: input.step.serial, { $0 = fresh }) != nil else {
                return stepRefused(caller, .stale, asked: input.authenticatorID)
            }
            return representation(caller, formStep(authenticator, at: 0))
        case ("POST", let action?) where action.hasPrefix("step-"):
            guard let index = Int(action.dropFirst("step-".count)), steps.indices.contains(index) else { break }
            RequestTrace.secretFields(steps[index].fields.filter { $0.type == .password }.map(\.name))
            guard case .form(let progress) = input.progress, progress.step == index else {
                return problem(
                    caller,
                    Representation.problem(
                        .unexpectedProblem, title: "This step is not the one the flow is at; it was sent already"),
                    rule: .flowState, detail: "\(authenticator.id) step \(index) submitted out of order")
            }
            let step = steps[index]
            let invalid: [InvalidField]
            do throws(PasswordHashingPool.Failure) {
                invalid = try await invalidFields(input.form, for: step)
            } catch {
                return await passwordCheckResponse(input, .busy)
            }
            guard invalid.isEmpty else { return problem(caller, Representation.invalidInput(invalid)) }
            let typed =
                step.fields.contains { $0.name == FormFieldConfiguration.usernameField }
                ? input.form[FormFieldConfiguration.usernameField] : nil
            if let typed, let subject, typed != subject {
                return stepRefused(caller, .otherUser, asked: input.authenticatorID)
            }
            let username = typed ?? progress.username ?? authenticator.user ?? subject
            if let password = step.fields.first(where: \.isAccountPassword) {
                let check = try await checkPassword(username: username ?? "", password: input.form[password.name] ?? "")
                guard case .success = check else { return await passwordCheckResponse(input, check) }
            } else if let typed, !authenticator.checksPassword, try await store.user(named: typed) == nil {
                return problem(
                    caller, Representation.problem(.incorrectCredentialsProblem, title: "Incorrect credentials"))
            }
            let next = index + 1
            let moved = await flows.updateProgress(input.session.id, serial: input.step.serial) { current -> Bool in
                guard case .form(let now) = current, now.step == index else { return false }
                current = .form(.init(step: next, username: username))
                return true
            }
            guard moved == true else { return stepRefused(caller, .stale, asked: input.authenticatorID) }
            if steps.indices.contains(next) { return representation(caller, formStep(authenticator, at: next)) }
            guard let username else {
                return problem(
                    caller, Representation.problem(.incorrectCredentialsProblem, title: "Incorrect credentials"))
            }
            return await completeStep(input, username: username)
        default:
            break
        }
        return problem(
            caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
    }

    typealias InvalidField = (name: String, reason: String, detail: String)

    /// The fields a submission gets wrong, each named with why: not asked for, too long, or not accepted.
    /// The `accept` patterns run on the worker pool, each within its time budget: a value that takes longer
    /// is not accepted, and no request thread waits on a pattern.
    func invalidFields(
        _ form: [String: String], for step: FormStepConfiguration
    ) async throws(PasswordHashingPool.Failure) -> [InvalidField] {
        let asked = Set(step.fields.map(\.name))
        var invalid: [InvalidField] = form.keys.filter { !asked.contains($0) }.sorted().map {
            (name: $0, reason: "unexpected", detail: "This step does not ask for this field")
        }
        let refused = step.invalidMessage ?? "This value is not accepted"
        var patterned: [(name: String, pattern: AcceptPattern, value: String)] = []
        for field in step.fields {
            let value = form[field.name]
            if let value, value.utf8.count > Self.maxFormValueBytes {
                invalid.append((field.name, "invalidValue", "At most \(Self.maxFormValueBytes) bytes"))
            } else if !field.acceptsBeforePattern(value) {
                let missing = (value ?? "").isEmpty && field.accept == nil
                invalid.append(
                    missing ? (field.name, "missing", "This field is required") : (field.name, "invalidValue", refused))
            } else if let source = field.accept {
                guard let pattern = acceptPatterns[source] else {
                    invalid.append((field.name, "invalidValue", refused))
                    continue
                }
                patterned.append((field.name, pattern, value ?? ""))
            }
        }
        guard !patterned.isEmpty else { return invalid }
        let checks = patterned
        let outcomes = try await passwordPool.run { checks.map { $0.pattern.match($0.value) } }
        for (check, outcome) in zip(patterned, outcomes) where outcome != .matches {
            invalid.append((check.name, "invalidValue", refused))
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
