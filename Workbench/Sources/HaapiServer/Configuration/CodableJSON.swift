import Foundation
@_spi(Tooling) import HaapiModel

/// Carries a `JSONValue` through `Codable`. The configuration's strict decoder hands it the value as the file
/// has it (`RawJSONDecodable`); another decoder would give object members in key order and numbers as `Int` or
/// `Double`.
struct CodableJSON: Codable, RawJSONDecodable {
    let value: JSONValue

    init(_ value: JSONValue) {
        self.value = value
    }

    init(rawJSON: JSONValue, codingPath: [any CodingKey]) {
        value = rawJSON
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            let keys = object.allKeys.sorted { $0.stringValue < $1.stringValue }
            value = .object(
                JSONObject(try keys.map { ($0.stringValue, try object.decode(CodableJSON.self, forKey: $0).value) }))
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(CodableJSON.self).value) }
            value = .array(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let flag = try? single.decode(Bool.self) {
            value = .bool(flag)
        } else if let integer = try? single.decode(Int.self) {
            value = .number(JSONNumber(integer))
        } else if let double = try? single.decode(Double.self), let number = JSONNumber(double) {
            value = .number(number)
        } else {
            value = .string(try single.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let flag):
            var single = encoder.singleValueContainer()
            try single.encode(flag)
        case .number(let number):
            var single = encoder.singleValueContainer()
            if let integer = Int(number.literal) {
                try single.encode(integer)
            } else {
                try single.encode(number.doubleValue ?? 0)
            }
        case .string(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case .array(let items):
            var array = encoder.unkeyedContainer()
            for item in items { try array.encode(CodableJSON(item)) }
        case .object(let object):
            var members = encoder.container(keyedBy: Key.self)
            for (key, member) in object { try members.encode(CodableJSON(member), forKey: Key(stringValue: key)) }
        }
    }
}
