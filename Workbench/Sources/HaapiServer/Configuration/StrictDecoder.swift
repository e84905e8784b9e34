import Foundation
@_spi(Tooling) import HaapiModel

/// Decodes a configuration from the document our own JSON parser read, once, and strictly: a member no type
/// asked for is an error that names its place (with the closest key it may have meant), a value of the wrong
/// JSON type names the type expected, and numbers are taken from their literals as written. The types decode
/// themselves through `Decodable` as usual; a `RawJSONDecodable` value (a recorded step) is handed its JSON as
/// it is, member order and number literals kept.
struct StrictDecoder {
    func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        let log = MemberLog()
        let decoded = try T(from: ValueDecoder(value: value, codingPath: [], log: log))
        try log.checkEveryMemberWasRead()
        return decoded
    }
}

/// A value the strict decoder hands its JSON to as it is.
protocol RawJSONDecodable {
    init(rawJSON: JSONValue, codingPath: [any CodingKey]) throws
}

/// What the strict decoder found wrong, at its place.
struct StrictDecodingError: Error, CustomStringConvertible {
    let codingPath: [any CodingKey]
    let message: String

    var place: String { ServerConfiguration.path(codingPath) }
    var description: String { "\(place): \(message)" }
}

/// The members of each object a type read, so that those nobody read are reported.
private final class MemberLog {
    private struct Opened {
        let codingPath: [any CodingKey]
        let object: JSONObject
        var read: Set<String>
        var known: [String]
    }

    private var opened: [String: Opened] = [:]
    private var order: [String] = []

    func open(_ object: JSONObject, at codingPath: [any CodingKey], known: [String]) {
        let place = ServerConfiguration.path(codingPath)
        if opened[place] == nil {
            opened[place] = Opened(codingPath: codingPath, object: object, read: [], known: known)
            order.append(place)
        } else {
            opened[place]?.known += known
        }
    }

    func read(_ key: String, at codingPath: [any CodingKey]) {
        opened[ServerConfiguration.path(codingPath)]?.read.insert(key)
    }

    func readAll(at codingPath: [any CodingKey]) {
        let place = ServerConfiguration.path(codingPath)
        if let object = opened[place]?.object { opened[place]?.read.formUnion(object.keys) }
    }

    /// The first member, in the order objects were read and members written, that no type read.
    func checkEveryMemberWasRead() throws {
        for place in order {
            guard let entry = opened[place] else { continue }
            for key in entry.object.keys where !entry.read.contains(key) {
                let candidates = Set(entry.known).union(entry.read)
                var message = "unknown key \"\(key)\""
                if let near = Self.closest(to: key, in: candidates) { message += "; did you mean \"\(near)\"?" }
                let known = candidates.sorted()
                if !known.isEmpty, known.count <= 24 { message += " (known here: \(known.joined(separator: ", ")))" }
                throw StrictDecodingError(codingPath: entry.codingPath + [MemberKey(key)], message: message)
            }
        }
    }

    /// The candidate within a small edit distance of `key` (a typo, a letter's case), if any.
    static func closest(to key: String, in candidates: Set<String>) -> String? {
        let wanted = Array(key.lowercased())
        let scored = candidates.map { candidate -> (String, Int) in
            (candidate, editDistance(wanted, Array(candidate.lowercased())))
        }
        guard let best = scored.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }) else { return nil }
        return best.1 <= max(1, min(3, wanted.count / 3)) ? best.0 : nil
    }

    /// Edits between two keys: insertions, deletions, substitutions and swaps of neighbours (`tilte`, `title`).
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}

/// A member's name, or an element's index, in a coding path.
private struct MemberKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ name: String) {
        stringValue = name
        intValue = nil
    }

    init(index: Int) {
        stringValue = "\(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}

/// The names of a coding-key type's cases, when it lists them.
private func caseNames<Key: CodingKey>(_: Key.Type) -> [String] {
    guard let listed = Key.self as? any (CodingKey & CaseIterable).Type else { return [] }
    return names(of: listed)
}

private func names<Key: CodingKey & CaseIterable>(of _: Key.Type) -> [String] {
    Key.allCases.map(\.stringValue)
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let log: MemberLog
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func mismatch(_ expected: String) -> StrictDecodingError {
        StrictDecodingError(codingPath: codingPath, message: "expected \(expected), got \(Self.describe(value))")
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "the boolean \(flag)"
        case .number(let number): "the number \(number.literal)"
        case .string(let text): "the string \(JSONValue.string(String(text.prefix(40))).serialized())"
        case .array: "an array"
        case .object: "an object"
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch("an object") }
        log.open(object, at: codingPath, known: caseNames(Key.self))
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath, log: log))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch("an array") }
        return UnkeyedContainer(items: items, codingPath: codingPath, log: log)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValue(decoder: self) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if let raw = type as? any RawJSONDecodable.Type {
            guard let decoded = try raw.init(rawJSON: value, codingPath: codingPath) as? T else {
                throw mismatch("a value of \(type)")
            }
            return decoded
        }
        return try T(from: self)
    }

    func string() throws -> String {
        guard case .string(let text) = value else { throw mismatch("a string") }
        return text
    }

    func bool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch("true or false") }
        return flag
    }

    func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch("a whole number") }
        guard let integer = T(number.literal, radix: 10) else {
            throw StrictDecodingError(
                codingPath: codingPath,
                message: "expected a whole number from \(T.min) to \(T.max), got \(number.literal)")
        }
        return integer
    }

    func floatingPoint() throws -> Double {
        guard case .number(let number) = value, let double = Double(number.literal), double.isFinite else {
            throw mismatch("a number")
        }
        return double
    }
}

private struct SingleValue: SingleValueDecodingContainer {
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.bool() }
    func decode(_ type: String.Type) throws -> String { try decoder.string() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.floatingPoint() }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.floatingPoint()) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let codingPath: [any CodingKey]
    let log: MemberLog

    var allKeys: [Key] {
        log.readAll(at: codingPath)
        return object.keys.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        log.read(key.stringValue, at: codingPath)
        return object[key.stringValue] != nil
    }

    private func decoder(for key: Key) throws -> ValueDecoder {
        log.read(key.stringValue, at: codingPath)
        guard let member = object[key.stringValue] else {
            throw StrictDecodingError(codingPath: codingPath + [key], message: "missing")
        }
        return ValueDecoder(value: member, codingPath: codingPath + [key], log: log)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder(for: key).value.isNull }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder(for: key).bool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder(for: key).string() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder(for: key).floatingPoint() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decoder(for: key).floatingPoint()) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder(for: key).integer(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder(for: key).integer(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder(for: key).integer(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder(for: key).integer(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder(for: key).integer(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder(for: key).integer(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder(for: key).integer(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder(for: key).integer(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder(for: key).integer(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder(for: key).integer(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try decoder(for: key).decode(type) }

    /// A member that is `null` counts as absent, as `JSONDecoder` takes it.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key), let member = object[key.stringValue], !member.isNull else { return nil }
        return try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(object), codingPath: codingPath, log: log) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try decoder(for: key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    let log: MemberLog
    var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey], log: MemberLog) {
        self.items = items
        self.codingPath = codingPath
        self.log = log
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next() throws -> ValueDecoder {
        guard items.indices.contains(currentIndex) else {
            throw StrictDecodingError(
                codingPath: codingPath + [MemberKey(index: currentIndex)], message: "missing (the array ends)")
        }
        defer { currentIndex += 1 }
        return ValueDecoder(
            value: items[currentIndex], codingPath: codingPath + [MemberKey(index: currentIndex)], log: log)
    }

    mutating func decodeNil() throws -> Bool {
        guard items.indices.contains(currentIndex), items[currentIndex].isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().bool() }
    mutating func decode(_ type: String.Type) throws -> String { try next().string() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().floatingPoint() }
    mutating func decode(_ type: Float.Type) throws -> Float { Float(try next().floatingPoint()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().integer(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}
