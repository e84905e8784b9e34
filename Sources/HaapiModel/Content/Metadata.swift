/// Hints about the server template behind a step; UIs may switch on `viewName`.
public struct Metadata: RawJsonRepresentable, Hashable {
    public let templateArea: String?
    public let viewName: String?
    public let rawJson: JSONValue

    init(_ cursor: ObjectCursor) throws {
        templateArea = try cursor.optionalString("templateArea")
        viewName = try cursor.optionalString("viewName")
        rawJson = cursor.raw
    }
}
