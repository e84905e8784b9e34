import Foundation

/// One CBOR data item (RFC 8949). Maps keep their entries in order; the encoder writes them in CTAP2
/// canonical order, and the decoder refuses duplicate keys.
public indirect enum CBORValue: Sendable, Hashable {
    /// A non-negative integer (major type 0).
    case unsigned(UInt64)
    /// The integer -1 - n (major type 1).
    case negative(UInt64)
    /// A byte string.
    case bytes(Data)
    /// A UTF-8 text string.
    case text(String)
    /// An array.
    case array([CBORValue])
    /// A map, entries in order.
    case map([CBORMapEntry])
    /// A tagged item.
    case tagged(UInt64, CBORValue)
    /// `false` or `true`.
    case bool(Bool)
    /// `null`.
    case null
    /// `undefined`.
    case undefined
    /// A floating-point number (half, single or double precision).
    case float(Double)

    /// An integer, as `unsigned` or `negative` by its sign.
    public static func int(_ value: Int) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// The value as a Swift `Int`, when it is an integer that fits.
    public var intValue: Int? {
        switch self {
        case .unsigned(let n): n <= UInt64(Int.max) ? Int(n) : nil
        case .negative(let n): n <= UInt64(Int.max) ? -1 - Int(n) : nil
        default: nil
        }
    }

    /// The bytes of a byte string; `nil` for other items.
    public var bytesValue: Data? {
        if case .bytes(let data) = self { return data }
        return nil
    }

    /// The text of a text string; `nil` for other items.
    public var textValue: String? {
        if case .text(let text) = self { return text }
        return nil
    }

    /// The entries of a map; `nil` for other items.
    public var mapValue: [CBORMapEntry]? {
        if case .map(let entries) = self { return entries }
        return nil
    }

    /// The map entry with this key, if the value is a map.
    public subscript(key: CBORValue) -> CBORValue? {
        mapValue?.first { $0.key == key }?.value
    }

    public subscript(key: String) -> CBORValue? { self[.text(key)] }
    public subscript(key: Int) -> CBORValue? { self[.int(key)] }
}

/// One key and its value in a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    /// The key.
    public let key: CBORValue
    /// The value.
    public let value: CBORValue

    /// An entry.
    public init(_ key: CBORValue, _ value: CBORValue) {
        self.key = key
        self.value = value
    }
}

extension CBORValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}
