/// A human-readable text as the server sends it: a literal, a localisation key (`…Key`), or both.
public struct Message: Sendable, Hashable, CustomStringConvertible {
    /// The text as the server wrote it, in the user's language.
    public let literal: String?
    /// The server's message key, for apps that show their own text instead of the literal one.
    public let key: String?

    /// A message with the server's text and, optionally, its key.
    public init(literal: String?, key: String? = nil) {
        self.literal = literal
        self.key = key
    }

    /// The text to show: the literal when there is one, else the key.
    public var description: String { literal ?? key ?? "" }
}

/// A message to show the user, with the CSS-like classes that say how (`info`, `error`, `heading`, …).
public struct UserMessage: RawJSONRepresentable, Hashable {
    /// What the message says.
    public let text: Message
    /// The server's style classes (`error`, `info`, `warning`, …).
    public let classList: [String]
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        guard let text = try cursor.message("text") else { throw cursor.missing("text") }
        self.text = text
        classList = try cursor.strings("classList")
        rawJSON = cursor.raw
    }

    /// Whether any class marks the message as an error (`error`, `is-error`), compared case-insensitively.
    public var isError: Bool {
        classList.contains { $0.caseInsensitiveCompare("error") || $0.caseInsensitiveCompare("is-error") }
    }
}

extension String {
    func caseInsensitiveCompare(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}
