/// A step with a single form and nothing to ask the user; clients follow it automatically.
public struct RedirectionStep: HaapiRepresentation {
    public let content: RepresentationContent
    /// The form to submit to continue; `HaapiManager` follows it by itself unless auto-redirect is off.
    public let action: FormAction
}

/// A choice between authenticators (password, e-mail, passkey, …).
public struct AuthenticatorSelectorStep: HaapiRepresentation {
    /// One authenticator of the choice.
    public struct AuthenticatorOption: Sendable {
        /// The authenticator's name as the server shows it.
        public let title: Message?
        /// `properties.authenticatorType` of the option, e.g. `html-form`, `email`, `bankid`.
        public let type: String?
        /// Submitting this action chooses the authenticator.
        public let action: FormAction
    }

    public let content: RepresentationContent
    /// The selector the options come from.
    public let selectorAction: SelectorAction
    /// The authenticators to choose from, in the server's order.
    public let authenticators: [AuthenticatorOption]

    /// The selector's heading.
    public var title: Message? { selectorAction.title }
}

/// A step that shows forms, selectors, messages and links for the user to act on.
public struct InteractiveFormStep: HaapiRepresentation {
    public let content: RepresentationContent

    /// The step's form actions, in order.
    public var formActions: [FormAction] { content.formActions }
}

/// Wait for something that happens elsewhere (another device, an e-mail link, BankID).
///
/// A polling step stays a `PollingStep` even when it also carries a client operation (BankID on
/// servers from 8.0 puts its launch operation here); that operation is in `clientOperation`.
public struct PollingStep: HaapiRepresentation {
    public let content: RepresentationContent
    /// The polling status and the server's properties.
    public let pollingProperties: PollingProperties

    public var properties: (any Properties)? { pollingProperties }
    /// Whether to poll again or follow the step's main action.
    public var status: PollingStatus { pollingProperties.status }

    /// The form to submit again after the interval while pending.
    public var pollAction: FormAction? { content.formActions.first { $0.kind == .poll } }
    /// The action that gives up waiting, when there is one.
    public var cancelAction: FormAction? { content.formActions.first { $0.kind == .cancel } }
    /// What moves the flow on: the poll form while pending, else the first form that is not a cancel.
    public var mainAction: FormAction? {
        if status == .pending, let pollAction { return pollAction }
        return content.formActions.first { $0.kind != .cancel }
    }
    /// The client operation to run while waiting (open BankID), when there is one.
    public var clientOperation: ClientOperationAction? {
        content.actions.lazy.compactMap { $0 as? ClientOperationAction }.first
    }
}

/// "No progress was made": stay on the previous step (which may now offer its `continueActions`).
public struct ContinueSameStep: HaapiRepresentation {
    public let content: RepresentationContent
}

/// OAuth consent: checkboxes for scopes or claims, and forms to accept or decline.
public struct UserConsentStep: HaapiRepresentation {
    public let content: RepresentationContent

    /// The choices (accept, refuse), as forms.
    public var formActions: [FormAction] { content.formActions }
}

/// The end of a successful flow, carrying the authorization code.
public struct OAuthAuthorizationResponseStep: HaapiRepresentation {
    public let content: RepresentationContent
    /// The authorization response: the code to redeem, `state`, and the issuer.
    public let oauthAuthorizationResponseProperties: OAuthAuthorizationResponseProperties

    public var properties: (any Properties)? { oauthAuthorizationResponseProperties }
}

/// A representation this SDK cannot drive: an unknown `type`, a redirection step that is not a
/// plain redirect, or a step whose only actions have templates it does not know. Its raw JSON is kept.
public struct GenericRepresentationStep: HaapiRepresentation {
    public let content: RepresentationContent
}
