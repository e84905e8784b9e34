/// Turns a decoded representation into the typed step a client renders.
///
/// For authentication, registration and consentor steps the rules are (docs/WIRE-DECISIONS.md):
/// 1. a single `selector` action of kind `authenticator-selector` whose options are all
///    `select-authenticator` forms is an `AuthenticatorSelectorStep`;
/// 2. otherwise exactly one `client-operation` action makes a client-operation step, typed by name;
/// 3. otherwise actions that all have unknown templates make a `GenericRepresentationStep`;
/// 4. otherwise it is an `InteractiveFormStep`.
enum StepClassifier {
    static func classify(_ content: RepresentationContent) throws -> any HaapiRepresentation {
        switch content.type {
        case .redirectionStep:
            let forms = content.formActions
            guard content.actions.count == 1, let form = forms.first, !form.model.hasInteractiveFields else {
                return GenericRepresentationStep(content: content)
            }
            return RedirectionStep(content: content, action: form)
        case .pollingStep:
            return PollingStep(content: content, pollingProperties: try PollingProperties(content.propertiesCursor()))
        case .continueSameStep:
            return ContinueSameStep(content: content)
        case .userConsentStep:
            return UserConsentStep(content: content)
        case .oauthAuthorizationResponse:
            let properties = try OAuthAuthorizationResponseProperties(content.propertiesCursor())
            return OAuthAuthorizationResponseStep(content: content, oauthAuthorizationResponseProperties: properties)
        case .authenticationStep, .registrationStep, .consentorStep:
            return interactive(content)
        case .other:
            return GenericRepresentationStep(content: content)
        }
    }

    private static func interactive(_ content: RepresentationContent) -> any HaapiRepresentation {
        if let selector = authenticatorSelector(content) { return selector }
        let operations = content.actions.compactMap { $0 as? ClientOperationAction }
        if operations.count == 1, let operation = operations.first {
            return clientOperationStep(content, operation)
        }
        if !content.actions.isEmpty, content.actions.allSatisfy({ $0 is GenericAction }) {
            return GenericRepresentationStep(content: content)
        }
        return InteractiveFormStep(content: content)
    }

    private static func authenticatorSelector(_ content: RepresentationContent) -> AuthenticatorSelectorStep? {
        guard content.actions.count == 1, let selector = content.actions.first as? SelectorAction,
            selector.kind == .authenticatorSelector, !selector.model.options.isEmpty
        else { return nil }
        var options: [AuthenticatorSelectorStep.AuthenticatorOption] = []
        for option in selector.model.options {
            guard let form = option as? FormAction, form.kind == .selectAuthenticator else { return nil }
            options.append(.init(title: form.title, type: form.properties?.authenticatorType, action: form))
        }
        return AuthenticatorSelectorStep(content: content, selectorAction: selector, authenticators: options)
    }

    private static func clientOperationStep(
        _ content: RepresentationContent, _ action: ClientOperationAction
    ) -> any ClientOperationStep {
        switch action.model {
        case let model as ExternalBrowserClientOperationActionModel:
            ExternalBrowserClientOperationStep(content: content, clientOperationAction: action, actionModel: model)
        case let model as BankIdClientOperationActionModel:
            BankIdClientOperationStep(content: content, clientOperationAction: action, actionModel: model)
        case let model as EncapAutoActivationClientOperationActionModel:
            EncapClientOperationStep(content: content, clientOperationAction: action, actionModel: model)
        case let model as WebAuthnRegistrationClientOperationActionModel:
            WebAuthnRegistrationClientOperationStep(content: content, clientOperationAction: action, actionModel: model)
        case let model as WebAuthnAuthenticationClientOperationActionModel:
            WebAuthnAuthenticationClientOperationStep(
                content: content, clientOperationAction: action, actionModel: model)
        default:
            GenericClientOperationStep(content: content, clientOperationAction: action)
        }
    }
}
