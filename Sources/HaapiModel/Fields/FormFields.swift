/// A value the server needs back unchanged; the user never sees it.
public struct HiddenFormField: CommonFormField {
    public let common: FormFieldCommon
    public let rawJSON: JSONValue
}

/// A field for the user's name; a UI may offer the platform's saved accounts.
public struct UsernameFormField: CommonFormField {
    public let common: FormFieldCommon
    public let rawJSON: JSONValue
}

/// Entered without echo; its value never reaches a log.
public struct PasswordFormField: CommonFormField {
    public let common: FormFieldCommon
    public let rawJSON: JSONValue
}

/// Filled by the client from what an out-of-band operation returned (`_resume_nonce`, a WebAuthn credential).
public struct ContextFormField: CommonFormField {
    public let common: FormFieldCommon
    public let rawJSON: JSONValue
}

/// A field type this SDK does not know; render it as text and keep its raw JSON.
public struct GenericFormField: CommonFormField {
    public let common: FormFieldCommon
    public let rawJSON: JSONValue
}

/// A free-text field; `kind` says when it holds something more specific (an e-mail address, a number, a URL, a phone
/// number).
public struct TextFormField: CommonFormField {
    /// The keyboard or input flavour the server asks for.
    public enum Kind: OpenEnum {
        /// A number.
        case number
        /// An e-mail address.
        case email
        /// A web address.
        case url
        /// A telephone number.
        case tel
        /// A colour.
        case color
        case other(value: String)

        public static let knownCases: [Kind] = [.number, .email, .url, .tel, .color]

        public var rawValue: String {
            switch self {
            case .number: "number"
            case .email: "email"
            case .url: "url"
            case .tel: "tel"
            case .color: "color"
            case .other(let value): value
            }
        }
    }

    public let common: FormFieldCommon
    /// What the text is, when the server says, so a UI can pick the right keyboard.
    public let kind: Kind?
    /// The shortest value the server accepts.
    public let minLength: Int?
    /// The longest value the server accepts.
    public let maxLength: Int?
    public let rawJSON: JSONValue

    init(_ common: FormFieldCommon, _ cursor: ObjectCursor) throws {
        self.common = common
        kind = try cursor.optionalString("kind").map(Kind.init(rawValue:))
        minLength = try cursor.flexibleInt("minLength")
        maxLength = try cursor.flexibleInt("maxLength")
        if let minLength, let maxLength, minLength > maxLength {
            throw cursor.invalid("minLength", "minLength \(minLength) is greater than maxLength \(maxLength)")
        }
        rawJSON = cursor.raw
    }
}

/// A choice of one value among options (a country, a device).
public struct SelectFormField: CommonFormField {
    /// One choice of a select field.
    public struct Option: RawJSONRepresentable, Hashable {
        /// The text shown for this option.
        public let label: Message
        /// The value sent when this option is chosen.
        public let value: String
        /// Whether the option is chosen before the user picks one.
        public let selected: Bool
        public let rawJSON: JSONValue

        init(_ cursor: ObjectCursor) throws {
            label = try cursor.message("label") ?? Message(literal: try cursor.string("value"))
            value = try cursor.string("value")
            selected = try cursor.optionalBool("selected") ?? false
            rawJSON = cursor.raw
        }
    }

    public let common: FormFieldCommon
    /// The options to choose from, in the server's order.
    public let options: [Option]
    public let rawJSON: JSONValue

    init(_ common: FormFieldCommon, _ cursor: ObjectCursor) throws {
        self.common = common
        options = try cursor.objects("options").map(Option.init)
        rawJSON = cursor.raw
    }

    /// The value the form starts with: the field's `value`, else the option marked `selected`.
    public var selectedValue: String? {
        value ?? options.first(where: \.selected)?.value
    }
}

/// A yes-or-no field; its value is sent only when it is checked.
public struct CheckboxFormField: CommonFormField {
    public let common: FormFieldCommon
    /// Whether the box is checked before the user acts.
    public let checked: Bool
    /// A read-only checkbox keeps the server's state (consent uses `checked` + `readonly`).
    public let readonly: Bool
    public let rawJSON: JSONValue

    init(_ common: FormFieldCommon, _ cursor: ObjectCursor) throws {
        self.common = common
        checked = try cursor.optionalBool("checked") ?? false
        readonly = try cursor.optionalBool("readonly") ?? false
        rawJSON = cursor.raw
    }
}
