/// Every model keeps the JSON it was decoded from, so nothing the server sent is ever lost,
/// including members this version of the SDK does not know about.
public protocol RawJSONRepresentable: Sendable {
    /// The value as the server sent it, member order and number literals kept.
    var rawJSON: JSONValue { get }
}

extension RawJSONRepresentable {
    /// The original JSON, written out compactly with the server's member order.
    public var rawJSONString: String { rawJSON.serialized() }
}

/// The seed's spelling of ``RawJSONRepresentable``, so code written against it compiles unchanged.
public typealias RawJsonRepresentable = RawJSONRepresentable
