/// Hints about the server template behind a step; UIs may switch on `viewName`.
public struct Metadata: RawJSONRepresentable, Hashable {
    /// The server's template area, for apps that style by it.
    public let templateArea: String?
    /// The server's name for the screen this step is (`authenticator/html-form/authenticate/get`), for apps that style
    /// screens by name.
    public let viewName: String?
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        templateArea = try cursor.optionalString("templateArea")
        viewName = try cursor.optionalString("viewName")
        rawJSON = cursor.raw
    }
}
