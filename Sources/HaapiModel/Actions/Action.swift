/// Something the user or the client can do on a step.
///
/// Concrete actions are `FormAction`, `SelectorAction`, `ClientOperationAction`, and `GenericAction`
/// for templates this SDK does not know (it keeps the raw JSON so a custom UI can still use it).
public protocol Action: RawJSONRepresentable {
    /// How the action is shaped: a form, a selector of nested actions, or a client operation.
    var template: ActionTemplate { get }
    /// What the action is for (`login`, `cancel`, `poll`, `redirect`, …); unknown kinds keep their raw text.
    var kind: ActionKind { get }
    /// The label a UI shows on the action's button or option.
    var title: Message? { get }
}

/// The members every action has, read once for all templates.
struct ActionHeader {
    let template: ActionTemplate
    let kind: ActionKind
    let title: Message?

    init(_ cursor: ObjectCursor) throws {
        template = ActionTemplate(rawValue: try cursor.string("template"))
        kind = ActionKind(rawValue: try cursor.string("kind"))
        title = try cursor.message("title")
    }
}

/// An action's `properties` (`FormAction.Properties`, `SelectorAction.Properties`, `ClientOperationAction.Properties`
/// are this type): the authenticator type when the server names one, every member as sent in `rawJSON`.
public struct ActionProperties: RawJSONRepresentable, Hashable {
    /// The authenticator's type (`html-form`, `email`, `passkeys`, `bankid`, …), when named.
    public let authenticatorType: String?
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        authenticatorType = try cursor.optionalString("authenticatorType")
        rawJSON = cursor.raw
    }
}

enum ActionDecoding {
    static func action(_ value: JSONValue, at path: JSONPath) throws -> any Action {
        let cursor = try ObjectCursor(value, at: path)
        let header = try ActionHeader(cursor)
        switch header.template {
        case .form: return try FormAction(header, cursor)
        case .selector: return try SelectorAction(header, cursor)
        case .clientOperation: return try ClientOperationAction(header, cursor)
        case .other: return GenericAction(header, cursor)
        }
    }

    static func actions(_ key: String, in cursor: ObjectCursor) throws -> [any Action] {
        try cursor.array(key).map { try action($0.value, at: $0.path) }
    }
}

/// A form to fill in (or not) and submit: login, continue, cancel, poll, redirect, consent, ….
public struct FormAction: Action {
    public var template: ActionTemplate { .form }
    public let kind: ActionKind
    public let title: Message?
    /// Where and how the form is sent, and its fields.
    public let model: FormActionModel
    /// What the server adds about this action; `authenticatorType` for an authenticator option.
    public let properties: Properties?
    public let rawJSON: JSONValue

    /// Extra data on the action; for authenticator options it names the authenticator type.
    public typealias Properties = ActionProperties

    init(_ header: ActionHeader, _ cursor: ObjectCursor) throws {
        kind = header.kind
        title = header.title
        model = try FormActionModel(try cursor.object("model"))
        properties = try cursor.optionalObject("properties").map(Properties.init)
        rawJSON = cursor.raw
    }
}

/// A choice between nested actions (authenticators, devices, …); options can be selectors again.
public struct SelectorAction: Action {
    public var template: ActionTemplate { .selector }
    public let kind: ActionKind
    public let title: Message?
    /// The options to choose between.
    public let model: SelectorActionModel
    /// What the server adds about the choice, when it sends `properties`.
    public let properties: Properties?
    public let rawJSON: JSONValue

    /// A selector's `properties`: the authenticator type it chooses among, when the server names one.
    public typealias Properties = ActionProperties

    init(_ header: ActionHeader, _ cursor: ObjectCursor) throws {
        kind = header.kind
        title = header.title
        model = try SelectorActionModel(try cursor.object("model"))
        properties = try cursor.optionalObject("properties").map(Properties.init)
        rawJSON = cursor.raw
    }
}

/// The options of a selector action.
public struct SelectorActionModel: RawJSONRepresentable {
    /// The actions to choose between, in the server's order; an option may be a selector itself.
    public let options: [any Action]
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        options = try ActionDecoding.actions("options", in: cursor)
        rawJSON = cursor.raw
    }
}

/// An operation the client performs outside the API (open a browser, run BankID, create a passkey, …).
public struct ClientOperationAction: Action {
    public var template: ActionTemplate { .clientOperation }
    public let kind: ActionKind
    public let title: Message?
    /// The operation, with its arguments and the actions that follow it.
    public let model: any ClientOperationActionModel
    /// What the server adds about the operation, when it sends `properties`.
    public let properties: Properties?
    public let rawJSON: JSONValue

    /// A client operation's `properties`: the authenticator it belongs to, when the server names it.
    public typealias Properties = ActionProperties

    init(_ header: ActionHeader, _ cursor: ObjectCursor) throws {
        kind = header.kind
        title = header.title
        model = try ClientOperationDecoding.model(try cursor.object("model"))
        properties = try cursor.optionalObject("properties").map(Properties.init)
        rawJSON = cursor.raw
    }
}

/// An action whose template this SDK does not know (e.g. the legacy `launch`). Kept whole, never dropped.
public struct GenericAction: Action {
    public let template: ActionTemplate
    public let kind: ActionKind
    public let title: Message?
    /// The action's `model` as sent.
    public let model: JSONValue?
    public let rawJSON: JSONValue

    init(_ header: ActionHeader, _ cursor: ObjectCursor) {
        template = header.template
        kind = header.kind
        title = header.title
        model = cursor.value("model")
        rawJSON = cursor.raw
    }
}
