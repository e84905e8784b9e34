import Foundation

/// A step as a screen sees it, with no UI framework in it: what to show and what the user can do.
/// Renderers (SwiftUI, the terminal) draw it; the view model acts on what the user chose.
public struct HaapiUIModel: Sendable {
    /// What kind of screen the step is.
    public enum Content: Sendable {
        /// One or more forms (login, code entry, consent actions, registration, …).
        case forms([FormUIModel])
        /// A choice between authenticators.
        case selector([SelectorOptionUIModel])
        /// Waiting for something elsewhere (approval on another device, BankID, …).
        case polling(PollingUIModel)
        /// The user must consent; the forms are the choices (accept, decline, …).
        case consent([FormUIModel])
        /// The app must do something outside the flow (open a browser, run a passkey ceremony, …).
        case clientOperation(ClientOperationUIModel)
        /// A step this kit has no screen for; its raw JSON is kept.
        case unsupported(rawJSON: String)
    }

    /// The screen's title.
    public let title: String?
    /// Messages to show, the step's and any problem's.
    public let messages: [MessageUIModel]
    /// Links to show.
    public let links: [LinkUIModel]
    /// What the screen shows and asks for.
    public let content: Content
    /// The step as decoded, for renderers that need more than this model.
    public let step: any HaapiRepresentation
    /// A problem the server reported about the last submission that is not tied to one field.
    public var problemMessages: [MessageUIModel] = []

    /// The server's name for the screen.
    public var viewName: String? { step.metadata?.viewName }

    /// Whether the content is forms (a login or code screen) rather than a selector, polling or an operation.
    public var isFormStep: Bool {
        if case .forms = content { return true }
        return false
    }
}

/// A message to show.
public struct MessageUIModel: Sendable, Hashable {
    /// How a message is styled.
    public enum Kind: String, Sendable {
        /// Information.
        case info
        /// A warning.
        case warning
        /// An error.
        case error
        /// A heading over the step.
        case heading
        /// Any other class.
        case other
    }

    /// The message.
    public let text: String
    /// The server's style classes.
    public let classList: [String]

    /// How to style the message, from its classes.
    public var kind: Kind {
        for name in classList {
            switch name.lowercased() {
            case "error": return .error
            case "warning", "warn": return .warning
            case "heading": return .heading
            case "info", "success": return .info
            default: continue
            }
        }
        return classList.isEmpty ? .info : .other
    }
}

/// A link to show.
public struct LinkUIModel: Sendable {
    /// The link's text.
    public let title: String
    /// What the link is.
    public let rel: String
    /// Where it goes.
    public let href: String
    /// A `data:` image (a QR code for signing in on another device): show it, do not follow it.
    public let isDataImage: Bool
    /// The link as the model has it.
    public let link: Link

    /// Whether the link is a QR code to show (BankID on another device).
    public var isQRCode: Bool { isDataImage || rel.lowercased().contains("qr") }
}

/// A form to show.
public struct FormUIModel: Sendable {
    /// The form's heading.
    public let title: String?
    /// The action's kind (`login`, `cancel`, …).
    public let kind: String
    /// The fields, hidden ones included.
    public let fields: [FieldUIModel]
    /// The submit button's label.
    public let submitTitle: String
    /// The form as the model has it; submit it through the view model.
    public let model: FormActionModel
    /// The fields the user fills in (hidden and context fields are the kit's business).
    public var visibleFields: [FieldUIModel] { fields.filter(\.isVisible) }
}

/// A field to show.
public struct FieldUIModel: Sendable {
    /// What input to show.
    public enum Kind: Sendable, Equatable {
        /// Text, of a kind.
        case text(TextKind)
        /// A user name.
        case username
        /// A secret.
        case password
        /// A choice among options.
        case select([SelectOption])
        /// A checkbox.
        case checkbox(checked: Bool, readonly: Bool)
        /// Not shown.
        case hidden
        /// Filled in by the client.
        case context
    }

    /// The kind of text a text field holds.
    public enum TextKind: String, Sendable {
        /// Plain text.
        case plain
        /// An e-mail address.
        case email
        /// A telephone number.
        case tel
        /// A number.
        case number
        /// A web address.
        case url
        /// A kind this kit has no keyboard for.
        case other
    }

    /// An option of a select field.
    public struct SelectOption: Sendable, Equatable {
        /// The option's text.
        public let label: String
        /// The value sent.
        public let value: String
        /// Whether it is chosen at first.
        public let selected: Bool
    }

    /// The parameter name.
    public let name: String
    /// The label.
    public let label: String?
    /// The hint in the empty input.
    public let placeholder: String?
    /// The value the server filled in.
    public let value: String?
    /// What input to show.
    public let kind: Kind
    /// What the server said was wrong with this field after the last submission.
    public var problem: String?

    /// Whether the field is shown.
    public var isVisible: Bool { kind != .hidden && kind != .context }
    /// Whether the value must be masked.
    public var isSecret: Bool { kind == .password }
}

/// An option of a selector.
public struct SelectorOptionUIModel: Sendable {
    /// The option's label.
    public let title: String
    /// The authenticator type, for options that are authenticators.
    public let type: String?
    /// The form that chooses it.
    public let model: FormActionModel
}

/// A wait for something elsewhere.
public struct PollingUIModel: Sendable {
    /// Where the wait stands.
    public let status: PollingStatus
    /// Who was asked to approve, when the server says.
    public let recipient: String?
    /// Seconds between polls: the server's `interval` when it sends one, else `autoPollingDuration`.
    public let interval: TimeInterval
    /// The form that polls.
    public let pollAction: FormActionModel?
    /// The form that gives up.
    public let cancelAction: FormActionModel?
    /// When automatic polling gives up (`HaapiUIKitConfiguration.pollingTimeout` after the first poll step).
    public let deadline: Date?
    /// The app to open while waiting (BankID on the same device puts its launch operation in the polling step).
    public var appLaunchURL: URL? = nil
}

/// An operation outside the flow.
public struct ClientOperationUIModel: Sendable {
    /// The operation's name.
    public let name: String
    /// For external-browser operations: the URL to open (with the app's redirect URI filled in); for BankID
    /// and Encap: the app's link (`opensExternalApp`).
    public let launchURL: URL?
    /// Whether `launchURL` opens another app (through `HaapiUIKitConfiguration.externalAppOpener`) rather than a browser.
    public let opensExternalApp: Bool
    /// What to submit once the operation has succeeded.
    public let continueForm: FormActionModel?
    /// What to offer when it fails.
    public let errorForms: [FormUIModel]
    /// The step as the model has it.
    public let step: any ClientOperationStep
}
