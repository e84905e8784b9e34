import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@Suite("JSON and Foundation values")
struct JSONFoundationBridgeTests {
    @Test("a parsed document becomes Foundation values and comes back unchanged")
    func roundTrip() throws {
        let text = #"{"a":"x","b":1,"c":1.5,"d":true,"e":null,"f":[1,"two",false],"g":{"h":[]},"i":-7}"#
        let parsed = try JSONParser().parse(text)
        let foundation = parsed.foundationValue
        let dictionary = try #require(foundation as? [String: Any])
        #expect(dictionary["a"] as? String == "x")
        #expect(dictionary["b"] as? Int == 1)
        #expect(dictionary["c"] as? Double == 1.5)
        #expect(dictionary["d"] as? Bool == true)
        #expect(dictionary["e"] is NSNull)
        #expect((dictionary["g"] as? [String: Any])?["h"] as? [Any] != nil)
        let back = try #require(JSONValue(foundationValue: foundation))
        // A dictionary has no order: the bridge sorts members, so compare sorted forms.
        #expect(back.serialized(sortedKeys: true) == parsed.serialized(sortedKeys: true))
    }

    @Test("an integer too large for Int stays exact")
    func largeNumbers() throws {
        let parsed = try JSONParser().parse(#"{"n":12345678901234567890123}"#)
        let dictionary = try #require(parsed.foundationValue as? [String: Any])
        #expect(dictionary["n"] is Double || dictionary["n"] is String)
        let huge = try JSONParser().parse(#"[1e400]"#)
        #expect((huge.foundationValue as? [Any])?.first as? String == "1e400")
        #expect(JSONValue(foundationValue: huge.foundationValue) != nil)
        #expect(JSONValue(foundationValue: Int64.max)?.serialized() == "9223372036854775807")
        #expect(JSONValue(foundationValue: UInt64.max)?.serialized() == "18446744073709551615")
    }

    @Test("booleans stay booleans and integers stay integers")
    func booleansAndIntegers() {
        #expect(JSONValue(foundationValue: true) == .bool(true))
        #expect(JSONValue(foundationValue: 1) == .number(JSONNumber(1)))
        #expect(JSONValue(foundationValue: 0) == .number(JSONNumber(0)))
        #expect(JSONValue(foundationValue: NSNumber(value: true)) == .bool(true))
        #expect(JSONValue(foundationValue: NSNumber(value: 1))?.boolValue == nil)
        #expect(JSONValue(foundationValue: Int8(1)) == .number(JSONNumber(1)))
        #expect(JSONValue(foundationValue: UInt16(7))?.serialized() == "7")
        #expect(JSONValue(foundationValue: Int32(-3))?.serialized() == "-3")
    }

    @Test("a value without a JSON form, anywhere inside, gives nil and is named")
    func refusals() {
        #expect(JSONValue(foundationValue: Date()) == nil)
        #expect(JSONValue(foundationValue: Double.nan) == nil)
        #expect(JSONValue(foundationValue: Double.infinity) == nil)
        #expect(JSONValue(foundationValue: ["ok", Date()] as [Any]) == nil)
        #expect(JSONValue(foundationValue: ["nested": ["deep": Data()]] as [String: Any]) == nil)
        let parameters: [String: Any] = ["fine": "x", "when": Date(), "blob": Data()]
        #expect(JSONObject(foundationDictionary: parameters) == nil)
        #expect(JSONObject.membersWithoutJSONForm(in: parameters) == ["blob", "when"])
        #expect(JSONObject(jsonMembersOf: parameters) == ["fine": "x"])
    }

    @Test("a dictionary becomes an object in sorted key order")
    func sortedMembers() {
        let object = JSONObject(foundationDictionary: ["b": 2, "a": "1", "c": ["x": NSNull()]])
        #expect(object?.keys == ["a", "b", "c"])
        #expect(JSONValue.object(object ?? [:]).serialized() == #"{"a":"1","b":2,"c":{"x":null}}"#)
    }
}
