/// Hints about the server template behind a step; UIs may switch on `viewName`.
public struct Metadata: RawJSONRepresentable, Hashable {
    public let templateArea: String?
    public let viewName: String?
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        templateArea = try cursor.optionalString("templateArea")
        viewName = try cursor.optionalString("viewName")
        rawJSON = cursor.raw
    }
}
