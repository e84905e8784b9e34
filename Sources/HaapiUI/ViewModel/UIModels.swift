import Foundation

/// A step as a screen sees it, with no UI framework in it: what to show and what the user can do.
/// Renderers (SwiftUI, the terminal) draw it; the view model acts on what the user chose.
public struct HaapiUIModel: Sendable {
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

    public let title: String?
    public let messages: [MessageUIModel]
    public let links: [LinkUIModel]
    public let content: Content
    /// The step as decoded, for renderers that need more than this model.
    public let step: any HaapiRepresentation
    /// A problem the server reported about the last submission that is not tied to one field.
    public var problemMessages: [MessageUIModel] = []

    public var viewName: String? { step.metadata?.viewName }

    /// Whether the content is forms (a login or code screen) rather than a selector, polling or an operation.
    public var isFormStep: Bool {
        if case .forms = content { return true }
        return false
    }
}

public struct MessageUIModel: Sendable, Hashable {
    public enum Kind: String, Sendable { case info, warning, error, heading, other }

    public let text: String
    public let classList: [String]

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

public struct LinkUIModel: Sendable {
    public let title: String
    public let rel: String
    public let href: String
    /// A `data:` image (a QR code for signing in on another device): show it, do not follow it.
    public let isDataImage: Bool
    public let link: Link

    public var isQRCode: Bool { isDataImage || rel.lowercased().contains("qr") }
}

public struct FormUIModel: Sendable {
    public let title: String?
    public let kind: String
    public let fields: [FieldUIModel]
    public let submitTitle: String
    public let model: FormActionModel
    /// The fields the user fills in (hidden and context fields are the kit's business).
    public var visibleFields: [FieldUIModel] { fields.filter(\.isVisible) }
}

public struct FieldUIModel: Sendable {
    public enum Kind: Sendable, Equatable {
        case text(TextKind)
        case username
        case password
        case select([SelectOption])
        case checkbox(checked: Bool, readonly: Bool)
        case hidden
        case context
    }

    public enum TextKind: String, Sendable { case plain, email, tel, number, url, other }

    public struct SelectOption: Sendable, Equatable {
        public let label: String
        public let value: String
        public let selected: Bool
    }

    public let name: String
    public let label: String?
    public let placeholder: String?
    public let value: String?
    public let kind: Kind
    /// What the server said was wrong with this field after the last submission.
    public var problem: String?

    public var isVisible: Bool { kind != .hidden && kind != .context }
    public var isSecret: Bool { kind == .password }
}

public struct SelectorOptionUIModel: Sendable {
    public let title: String
    public let type: String?
    public let model: FormActionModel
}

public struct PollingUIModel: Sendable {
    public let status: PollingStatus
    public let recipient: String?
    /// Seconds between polls: the server's `interval` when it sends one, else `autoPollingDuration`.
    public let interval: TimeInterval
    public let pollAction: FormActionModel?
    public let cancelAction: FormActionModel?
    /// When automatic polling gives up (`HaapiUIKitConfiguration.pollingTimeout` after the first poll step).
    public let deadline: Date?
    /// The app to open while waiting (BankID on the same device puts its launch operation in the polling step).
    public var appLaunchURL: URL? = nil
}

public struct ClientOperationUIModel: Sendable {
    public let name: String
    /// For external-browser operations: the URL to open (with the app's redirect URI filled in); for BankID
    /// and Encap: the app's link (`opensExternalApp`).
    public let launchURL: URL?
    /// Whether `launchURL` opens another app (through `HaapiUIKitConfiguration.externalAppOpener`) rather than a browser.
    public let opensExternalApp: Bool
    public let continueForm: FormActionModel?
    public let errorForms: [FormUIModel]
    public let step: any ClientOperationStep
}
