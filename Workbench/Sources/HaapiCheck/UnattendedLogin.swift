import Foundation
@_spi(Tooling) import HaapiSdk
@_spi(Tooling) import HaapiUI

/// Walks a HAAPI flow without a person: picks the password authenticator, fills the username and
/// password fields, accepts consent, and stops at the authorization code. Anything that needs a person
/// (polling, a browser, a code sent elsewhere) ends with an error that says so.
package struct UnattendedLogin {
    package let manager: HaapiManager
    package let username: String
    package let password: String
    /// The authenticator to choose from a selector: matched against the option's href, type and title.
    package let authenticator: String

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Called when a consent step is accepted (`haapi login` says so on standard error; `haapi check` reports).
    package var onConsent: (@Sendable () -> Void)? = nil

    package init(
        manager: HaapiManager, username: String, password: String, authenticator: String,
        onConsent: (@Sendable () -> Void)? = nil
    ) {
        self.manager = manager
        self.username = username
        self.password = password
        self.authenticator = authenticator
        self.onConsent = onConsent
    }

    package static let maxSteps = 20

    /// The flow from a fresh authorization request (with `parameters`, or the configuration's); returns the
    /// authorization code.
    package func run(parameters: OAuthAuthorizationParameters? = nil) async throws -> String {
        var result = await manager.start(parameters: parameters)
        for _ in 0..<Self.maxSteps {
            let step: any HaapiRepresentation
            switch result {
            case .representation(let representation): step = representation
            case .problem(let problem):
                // The server's own words (title and messages); the problem type URI is a detail for --verbose.
                let words = ([problem.title?.description] + problem.messages.map { $0.text.description }).compactMap {
                    $0
                }.joined(separator: " ")
                throw HaapiUIError.problem(type: problem.type.rawValue, title: words.isEmpty ? nil : words)
            case .error(let error):
                throw error
            }
            switch step {
            case let done as OAuthAuthorizationResponseStep:
                guard let code = done.oauthAuthorizationResponseProperties.code else {
                    throw Failure(description: "the flow ended without a code")
                }
                return code
            case let selector as AuthenticatorSelectorStep:
                guard let option = choose(from: selector.authenticators) else {
                    let names = selector.authenticators.map { $0.title?.description ?? $0.action.model.href }.joined(
                        separator: ", ")
                    throw Failure(description: "no authenticator matches \"\(authenticator)\" (offered: \(names))")
                }
                result = await manager.submitForm(option.action.model)
            case let form as InteractiveFormStep:
                guard let action = form.formActions.first else {
                    throw Failure(description: "a form step without a form")
                }
                let filled = values(for: action.model)
                // A later step of a multi-step login (a code by SMS) asks for what a user name and a password
                // cannot answer: name it rather than send an empty form.
                let missing = action.model.fields.filter { field in
                    field.isRequired && filled[field.name] == nil && (field.value ?? "").isEmpty
                        && ![.hidden, .context, .checkbox, .select].contains(field.type)
                }
                guard missing.isEmpty else {
                    let names = missing.map { field in
                        field.label.map { "“\($0.description)” (\(field.name))" } ?? field.name
                    }
                    let example = missing.map { "\"\($0.name)\": \"…\"" }.joined(separator: ", ")
                    throw Failure(
                        description:
                            "the login's step “\(action.title?.description ?? form.type.rawValue)” asks for \(names.joined(separator: ", ")), which --username and --password do not answer: log in interactively, or script it with --answers (for this step: {\"fields\": {\(example)}})"
                    )
                }
                result = await manager.submitForm(action.model, parameters: filled)
            case let consent as UserConsentStep:
                guard let accept = consent.formActions.first else {
                    throw Failure(description: "a consent step without actions")
                }
                onConsent?()
                result = await manager.submitForm(accept.model)
            case let same as ContinueSameStep:
                guard let action = same.actions.compactMap({ $0 as? FormAction }).first else {
                    throw Failure(description: "a continue-same step without actions")
                }
                result = await manager.submitForm(action.model)
            default:
                throw Failure(description: "the step \(step.type.rawValue) needs a person; run the interactive login")
            }
        }
        throw Failure(description: "no authorization code after \(Self.maxSteps) steps")
    }

    private func choose(
        from options: [AuthenticatorSelectorStep.AuthenticatorOption]
    ) -> AuthenticatorSelectorStep.AuthenticatorOption? {
        let wanted = authenticator.lowercased()
        return options.first { $0.action.model.href.lowercased().hasSuffix("/" + wanted) }
            ?? options.first { ($0.type ?? "").lowercased().contains(wanted) }
            ?? options.first { ($0.title?.description ?? "").lowercased().contains(wanted) }
    }

    private func values(for form: FormActionModel) -> [String: any Sendable] {
        var values: [String: any Sendable] = [:]
        for field in form.fields {
            switch field {
            case is PasswordFormField: values[field.name] = password
            case is UsernameFormField: values[field.name] = username
            default:
                if ["username", "user", "login", "email"].contains(field.name.lowercased()) {
                    values[field.name] = username
                }
            }
        }
        return values
    }
}
