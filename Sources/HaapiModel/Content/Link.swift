/// An alternative path offered by a step (forgot password, restart, a QR code, …).
public struct Link: RawJSONRepresentable, Hashable {
    /// Where the link goes, as the server wrote it (relative to the server's base URL, or absolute).
    public let href: String
    /// What the link is (`register-create`, `forgot-password`, …).
    public let rel: String
    /// The text a UI shows for the link.
    public let title: Message?
    /// A media-type hint, e.g. `image/svg+xml`.
    public let type: String?
    public let rawJSON: JSONValue

    init(_ cursor: ObjectCursor) throws {
        href = try cursor.string("href")
        rel = try cursor.string("rel")
        title = try cursor.message("title")
        type = try cursor.optionalString("type")
        rawJSON = cursor.raw
    }

    /// Whether the link carries its content inline (`data:` URL), typically a QR code image.
    public var isDataLink: Bool { href.lowercased().hasPrefix("data:") }

    /// The media type of a `data:` link (`image/png`), else the `type` hint.
    public var mediaType: String? {
        guard isDataLink else { return type }
        let header = href.dropFirst(5).prefix { $0 != "," }
        let mediaType = header.split(separator: ";").first.map(String.init) ?? ""
        return mediaType.isEmpty ? "text/plain" : mediaType
    }
}
