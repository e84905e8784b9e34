/// The kind of input a form field asks for.
public enum FormFieldType: OpenEnum {
    /// A value sent as it is, never shown.
    case hidden
    /// Free text.
    case text
    /// A user name.
    case username
    /// A secret; never shown or logged.
    case password
    /// One value among options.
    case select
    /// A yes-or-no choice.
    case checkbox
    /// Filled in by the client, never by the user (e.g. `_resume_nonce`, WebAuthn credentials).
    case context
    case other(value: String)

    public static let knownCases: [FormFieldType] = [
        .hidden, .text, .username, .password, .select, .checkbox, .context,
    ]

    public var rawValue: String {
        switch self {
        case .hidden: "hidden"
        case .text: "text"
        case .username: "username"
        case .password: "password"
        case .select: "select"
        case .checkbox: "checkbox"
        case .context: "context"
        case .other(let value): value
        }
    }
}

/// One input of a form. Concrete fields: `HiddenFormField`, `TextFormField`, `UsernameFormField`,
/// `PasswordFormField`, `SelectFormField`, `CheckboxFormField`, `ContextFormField`, `GenericFormField`.
public protocol FormField: RawJSONRepresentable {
    /// The parameter name the field's value is sent under.
    var name: String { get }
    /// The kind of input (`text`, `username`, `password`, `select`, `checkbox`, `hidden`, `context`).
    var type: FormFieldType { get }
    /// The label a UI shows next to the input.
    var label: Message? { get }
    /// A hint shown in the empty input.
    var placeholder: String? { get }
    /// The value the server suggests (always sent for hidden fields).
    var value: String? { get }
    /// Servers treat a field as required unless it says `"required": false`.
    var isRequired: Bool { get }
}

/// The members every field has.
public struct FormFieldCommon: Sendable, Hashable {
    /// The parameter name the value is sent under.
    public let name: String
    /// The kind of input.
    public let type: FormFieldType
    /// The label shown next to the input.
    public let label: Message?
    /// A hint shown in the empty input.
    public let placeholder: String?
    /// The value the server fills in.
    public let value: String?
    /// Whether the form cannot be sent without a value.
    public let isRequired: Bool

    init(_ cursor: ObjectCursor) throws {
        name = try cursor.string("name")
        type = FormFieldType(rawValue: try cursor.string("type"))
        label = try cursor.message("label")
        placeholder = try cursor.optionalString("placeholder")
        value = try Self.scalarText(cursor, "value")
        isRequired = try cursor.optionalBool("required") ?? true
    }

    /// Field values are strings on the wire, but a number or boolean is a harmless variant; accept it as text.
    static func scalarText(_ cursor: ObjectCursor, _ key: String) throws -> String? {
        guard let value = cursor.value(key) else { return nil }
        switch value {
        case .string(let text): return text
        case .number(let number): return number.literal
        case .bool(let flag): return flag ? "true" : "false"
        default: throw cursor.mismatch(key, expected: "string", found: value)
        }
    }
}

/// Forwards the common members, so each concrete field only declares what is its own.
public protocol CommonFormField: FormField {
    /// The members every field has.
    var common: FormFieldCommon { get }
}

extension CommonFormField {
    public var name: String { common.name }
    public var type: FormFieldType { common.type }
    public var label: Message? { common.label }
    public var placeholder: String? { common.placeholder }
    public var value: String? { common.value }
    public var isRequired: Bool { common.isRequired }
}

enum FormFieldDecoding {
    static func field(_ value: JSONValue, at path: JSONPath) throws -> any FormField {
        let cursor = try ObjectCursor(value, at: path)
        let common = try FormFieldCommon(cursor)
        switch common.type {
        case .hidden:
            guard common.value != nil else { throw cursor.missing("value") }
            return HiddenFormField(common: common, rawJSON: cursor.raw)
        case .text: return try TextFormField(common, cursor)
        case .username: return UsernameFormField(common: common, rawJSON: cursor.raw)
        case .password: return PasswordFormField(common: common, rawJSON: cursor.raw)
        case .select: return try SelectFormField(common, cursor)
        case .checkbox: return try CheckboxFormField(common, cursor)
        case .context: return ContextFormField(common: common, rawJSON: cursor.raw)
        case .other: return GenericFormField(common: common, rawJSON: cursor.raw)
        }
    }
}

extension HaapiDecoder {
    /// Decodes a single form field object (useful for custom UIs and tests).
    public func decodeFormField(_ data: some Sequence<UInt8>) throws -> any FormField {
        try FormFieldDecoding.field(try parse(data), at: .root)
    }
}
