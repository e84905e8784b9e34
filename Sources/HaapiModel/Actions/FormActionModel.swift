/// Where and how a form is submitted, and its fields.
public struct FormActionModel: RawJSONRepresentable {
    /// The default body type of a form.
    public static let urlEncodedMediaType = "application/x-www-form-urlencoded"
    /// A JSON body, for forms that ask for one.
    public static let jsonMediaType = "application/json"

    /// Where the form is submitted, as the server wrote it (relative to the server's base URL, or absolute).
    public let href: String
    /// Upper-cased HTTP method.
    public let method: String
    /// The submission media type; `application/x-www-form-urlencoded` when the server omits it.
    public let type: String
    /// The label of the submit button, when it differs from the action's title.
    public let actionTitle: Message?
    /// Seen on some older servers beside `actionTitle`.
    public let title: Message?
    /// The fields to fill in or send as they are, in the server's order; hidden fields included.
    public let fields: [any FormField]
    /// Actions to offer after this form was submitted successfully (e.g. a passcode form after "send SMS").
    public let continueActions: [any Action]
    /// Actions to offer when submitting fails.
    public let errorActions: [any Action]
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        href = try cursor.string("href")
        let method = try cursor.string("method").uppercased()
        guard !method.isEmpty, method.allSatisfy({ $0.isLetter && $0.isASCII }) else {
            throw cursor.invalid("method", "\"\(method)\" is not an HTTP method")
        }
        self.method = method
        type = try cursor.optionalString("type") ?? Self.urlEncodedMediaType
        actionTitle = try cursor.message("actionTitle")
        title = try cursor.message("title")
        fields = try cursor.array("fields").map { try FormFieldDecoding.field($0.value, at: $0.path) }
        continueActions = try ActionDecoding.actions("continueActions", in: cursor)
        errorActions = try ActionDecoding.actions("errorActions", in: cursor)
        rawJSON = cursor.raw
    }

    /// Whether the form has something for the user to fill in or choose (anything but hidden fields).
    public var hasInteractiveFields: Bool {
        fields.contains { $0.type != .hidden }
    }

    /// The field with the given name, if any.
    public func field(named name: String) -> (any FormField)? {
        fields.first { $0.name == name }
    }
}
