/// A JSON value exactly as the server sent it.
///
/// Objects keep their member order and numbers keep their literal text, so a value can be written
/// back out (`rawJSONString`) without losing anything the server said.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its literal.
    case number(JSONNumber)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, member order kept.
    case object(JSONObject)

    /// The name of this value's JSON type, as used in error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The string, when the value is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean, when the value is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, when the value is one.
    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The elements, when the value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, when the value is one.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Member lookup on objects; `nil` for other values and missing members.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// Element lookup on arrays; `nil` for other values and for indices out of range (never traps).
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

/// A JSON number kept as its literal text, so large integers and exact decimals survive a round trip.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal as it appeared in the document (RFC 8259 number grammar).
    public let literal: String

    /// Creates a number from text that already follows the JSON number grammar.
    init(validatedLiteral: String) {
        self.literal = validatedLiteral
    }

    /// The number for an integer.
    public init(_ value: Int) {
        self.literal = String(value)
    }

    /// Creates a number from a finite double; `nil` for NaN and infinities, which JSON cannot express.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 {
            self.literal = String(Int64(value))
        } else {
            self.literal = String(value)
        }
    }

    /// The number as a `Double`, when it parses as one.
    public var doubleValue: Double? { Double(literal) }

    /// The value as an integer when the literal is one and fits.
    public var intValue: Int? {
        if let exact = Int(literal) { return exact }
        guard let double = Double(literal), double == double.rounded(),
            double >= Double(Int.min), double < Double(Int.max)
        else { return nil }
        return Int(double)
    }

    public var description: String { literal }
}

/// A JSON object that keeps member order. Member names are unique: the parser rejects duplicates.
public struct JSONObject: Sendable, Hashable, Sequence {
    /// The members in document order.
    public private(set) var members: [(key: String, value: JSONValue)]
    /// Positions by key, kept only for objects larger than `indexThreshold`: most objects on the wire have a
    /// handful of members, where a linear search is faster than building and probing a dictionary.
    private var index: [String: Int]
    private static let indexThreshold = 8

    /// An empty object.
    public init() {
        members = []
        index = [:]
    }

    /// An object from pairs in order; a later pair replaces an earlier one of the same key.
    public init(_ pairs: [(String, JSONValue)]) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    /// The member names in order.
    public var keys: [String] { members.map(\.key) }
    /// How many members.
    public var count: Int { members.count }
    /// Whether there are none.
    public var isEmpty: Bool { members.isEmpty }

    /// Whether a member of that name exists.
    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    private func position(of key: String) -> Int? {
        members.count > Self.indexThreshold ? index[key] : members.firstIndex { $0.key == key }
    }

    /// Reading returns the member; writing replaces it in place or appends it. Writing `nil` removes it.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return members[position].value
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                appendAbsent(key, newValue)
            }
        }
    }

    /// Room for `count` members, so an object of up to that many is one allocation.
    mutating func reserveCapacity(_ count: Int) { members.reserveCapacity(count) }

    /// Appends a member the caller knows is absent (the parser has just looked), without looking again.
    mutating func appendAbsent(_ key: String, _ value: JSONValue) {
        members.append((key, value))
        if members.count > Self.indexThreshold {
            if index.isEmpty { rebuildIndex() } else { index[key] = members.count - 1 }
        }
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> {
        members.makeIterator()
    }

    private mutating func rebuildIndex() {
        index = [:]
        guard members.count > Self.indexThreshold else { return }
        for (position, member) in members.enumerated() { index[member.key] = position }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements)) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }
}
