import Foundation

/// The bridge between `JSONValue` and the Foundation shapes the seeds' APIs use (`[String: Any]`, the values
/// `JSONSerialization` produces). Both directions are ours, so no Foundation JSON code touches the bytes.
extension JSONValue {
    /// Foundation values: `String`, `Int` (or `Double` for non-integers), `Bool`, `NSNull`, arrays and
    /// dictionaries of the same. A number too large for a finite `Double` keeps its literal text as a `String`.
    public var foundationValue: any Sendable {
        switch self {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .string(let text): return text
        case .number(let number):
            if let integer = Int(number.literal) { return integer }
            if let double = number.doubleValue, double.isFinite { return double }
            return number.literal
        case .array(let items): return items.map(\.foundationValue)
        case .object(let object): return object.foundationDictionary
        }
    }

    /// A JSON value from a Foundation value; `nil` when `value`, or anything inside it, has no JSON form
    /// (a `Date`, an app's own class, a non-finite number).
    public init?(foundationValue value: Any) {
        switch value {
        case let json as JSONValue: self = json
        case let object as JSONObject: self = .object(object)
        case is NSNull: self = .null
        case let text as String: self = .string(text)
        case let text as Substring: self = .string(String(text))
        // Booleans first: on Apple platforms a `Bool` inside an `NSDictionary` is an `NSNumber`, which also
        // casts to `Int`; only its type encoding tells the two apart.
        case _ where Self.isBoolean(value):
            guard let flag = value as? Bool else { return nil }
            self = .bool(flag)
        case let integer as Int: self = .number(JSONNumber(integer))
        case let integer as any BinaryInteger: self = .number(JSONNumber(validatedLiteral: String(integer)))
        case let double as Double:
            guard let number = JSONNumber(double) else { return nil }
            self = .number(number)
        case let float as Float:
            guard let number = JSONNumber(Double(float)) else { return nil }
            self = .number(number)
        case let dictionary as [String: Any]:
            guard let object = JSONObject(foundationDictionary: dictionary) else { return nil }
            self = .object(object)
        case let array as [Any]:
            var items: [JSONValue] = []
            items.reserveCapacity(array.count)
            for element in array {
                guard let item = JSONValue(foundationValue: element) else { return nil }
                items.append(item)
            }
            self = .array(items)
        default: return nil
        }
    }

    /// `true` for a Swift `Bool` and for an `NSNumber` made from one (type encoding `c` or `B`), never for
    /// an integer 0 or 1.
    public static func isBoolean(_ value: Any) -> Bool {
        if type(of: value) == Bool.self { return true }
        // Only a real NSNumber object can be a boolean one: a Swift `Int8` also bridges to an NSNumber whose
        // type encoding is `c`, and must stay a number.
        guard type(of: value) is NSNumber.Type, let number = value as? NSNumber else { return false }
        let encoding = String(cString: number.objCType)
        return encoding == "c" || encoding == "B"
    }
}

extension JSONObject {
    /// The members as a Foundation dictionary (see `JSONValue.foundationValue`).
    public var foundationDictionary: [String: any Sendable] {
        var dictionary: [String: any Sendable] = [:]
        dictionary.reserveCapacity(count)
        for (name, value) in self { dictionary[name] = value.foundationValue }
        return dictionary
    }

    /// An object from a Foundation dictionary, members in sorted key order (a dictionary has no order of its
    /// own, and a stable one keeps request bodies reproducible); `nil` when a value has no JSON form.
    public init?(foundationDictionary dictionary: [String: Any]) {
        self.init()
        for key in dictionary.keys.sorted() {
            guard let member = dictionary[key], let value = JSONValue(foundationValue: member) else { return nil }
            self[key] = value
        }
    }

    /// An object from the members of `dictionary` that have a JSON form, in sorted key order; the others are
    /// left out. For APIs whose `[String: Any]` setters cannot refuse a value.
    public init(jsonMembersOf dictionary: [String: Any]) {
        self.init()
        for key in dictionary.keys.sorted() {
            if let member = dictionary[key], let value = JSONValue(foundationValue: member) { self[key] = value }
        }
    }

    /// The names of the members of `dictionary` that have no JSON form, sorted; for error messages.
    public static func membersWithoutJSONForm(in dictionary: [String: Any]) -> [String] {
        dictionary.filter { JSONValue(foundationValue: $0.value) == nil }.keys.sorted()
    }
}
