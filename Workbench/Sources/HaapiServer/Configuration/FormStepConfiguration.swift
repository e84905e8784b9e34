import Foundation

/// One step of a `form` authenticator: a HAAPI `authentication-step` with one form of the team's fields.
public struct FormStepConfiguration: Codable, Sendable, Equatable {
    public var title: String
    public var fields: [FormFieldConfiguration]
    /// The submit button's text.
    public var submit: String?
    /// Shown above the form.
    public var messages: [String]
    /// The `invalid-input` detail of a field whose value its `accept` pattern refuses.
    public var invalidMessage: String?

    public init(
        title: String, fields: [FormFieldConfiguration], submit: String? = nil, messages: [String] = [],
        invalidMessage: String? = nil
    ) {
        self.title = title
        self.fields = fields
        self.submit = submit
        self.messages = messages
        self.invalidMessage = invalidMessage
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case title, fields, submit, messages, invalidMessage }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        title = try c.decode(String.self, forKey: .title)
        fields = try c.decodeIfPresent([FormFieldConfiguration].self, forKey: .fields) ?? []
        submit = try c.decodeIfPresent(String.self, forKey: .submit)
        messages = try c.decodeIfPresent([String].self, forKey: .messages) ?? []
        invalidMessage = try c.decodeIfPresent(String.self, forKey: .invalidMessage)
        let names = fields.map(\.name)
        if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw DecodingError.dataCorruptedError(
                forKey: .fields, in: c, debugDescription: "two fields are named \"\(twice)\"")
        }
    }
}

/// One field of a form step, with the HAAPI field members the SDK decodes.
public struct FormFieldConfiguration: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case text, password, username, select, checkbox, hidden, context
    }

    /// One choice of a `select` field.
    public struct Option: Codable, Sendable, Equatable {
        public var label: String
        public var value: String

        public init(label: String, value: String) {
            self.label = label
            self.value = value
        }
    }

    public var name: String
    public var type: Kind
    public var label: String?
    public var placeholder: String?
    public var value: String?
    public var options: [Option]
    /// A regular expression (ICU syntax, as `NSRegularExpression`) the whole submitted value must match; one
    /// that repeats a repetition (`([0-9]+ ?)+`) is refused at load (`AcceptPattern`).
    public var accept: String?

    public init(
        name: String, type: Kind, label: String? = nil, placeholder: String? = nil, value: String? = nil,
        options: [Option] = [], accept: String? = nil
    ) {
        self.name = name
        self.type = type
        self.label = label
        self.placeholder = placeholder
        self.value = value
        self.options = options
        self.accept = accept
    }

    /// The field whose value names the user a form signs in.
    static let usernameField = "username"

    /// Whether the value is the account's password, checked against it: a `password` field without an
    /// `accept` pattern (one with a pattern is a code the pattern checks, typed unseen).
    var isAccountPassword: Bool { type == .password && accept == nil }

    /// Whether the user sees and fills this field (hidden and context fields carry the server's values).
    var isFilledByUser: Bool { ![.hidden, .context].contains(type) }

    /// Whether `submitted` passes the field's own rules, before its `accept` pattern: a select's value is one
    /// of its options; without a pattern, a visible field is not empty (a checkbox may be left unticked).
    func acceptsBeforePattern(_ submitted: String?) -> Bool {
        if type == .select, let submitted, !options.contains(where: { $0.value == submitted }) { return false }
        guard accept == nil else { return true }
        return !isFilledByUser || type == .checkbox || !(submitted ?? "").isEmpty
    }

    enum CodingKeys: String, CodingKey, CaseIterable { case name, type, label, placeholder, value, options, accept }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        guard !name.isEmpty, name.utf8.count <= 128 else {
            throw DecodingError.dataCorruptedError(
                forKey: .name, in: c, debugDescription: "a field name is 1 to 128 bytes")
        }
        let kind = try c.decodeChoice(Kind.self, forKey: .type, named: "field type")
        type = kind
        label = try c.decodeIfPresent(String.self, forKey: .label)
        placeholder = try c.decodeIfPresent(String.self, forKey: .placeholder)
        value = try c.decodeIfPresent(String.self, forKey: .value)
        options = try c.decodeIfPresent([Option].self, forKey: .options) ?? []
        accept = try c.decodeIfPresent(String.self, forKey: .accept)
        if kind == .select, options.isEmpty {
            throw DecodingError.dataCorruptedError(
                forKey: .options, in: c, debugDescription: "a select field needs at least one option")
        }
        if kind != .select, !options.isEmpty {
            throw DecodingError.dataCorruptedError(
                forKey: .options, in: c, debugDescription: "options are for select fields only")
        }
        if let accept {
            do throws(AcceptPattern.Refusal) {
                _ = try AcceptPattern(accept)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: .accept, in: c, debugDescription: error.message(for: accept))
            }
        }
    }
}
