/// Every model keeps the JSON it was decoded from, so nothing the server sent is ever lost,
/// including members this version of the SDK does not know about.
public protocol RawJsonRepresentable: Sendable {
    var rawJson: JSONValue { get }
}

extension RawJsonRepresentable {
    /// The original JSON, written out compactly with the server's member order.
    public var rawJsonString: String { rawJson.serialized() }
}
