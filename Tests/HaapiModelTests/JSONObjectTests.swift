import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@Suite("JSONObject lookups, small and large")
struct JSONObjectTests {
    @Test("members are found, replaced and removed whether the object is below or above the index threshold")
    func lookupsAcrossSizes() {
        var object = JSONObject()
        for count in 0..<20 {
            object["k\(count)"] = .number(JSONNumber(count))
            for present in 0...count {
                #expect(object["k\(present)"] == .number(JSONNumber(present)), "size \(count + 1), k\(present)")
            }
            #expect(object["missing"] == nil)
        }
        object["k3"] = "replaced"
        #expect(object["k3"] == "replaced" && object.count == 20 && object.keys[3] == "k3")
        for removed in 0..<18 {
            object["k\(removed)"] = nil
            #expect(!object.contains("k\(removed)"))
            for present in (removed + 1)..<20 {
                #expect(object.contains("k\(present)"), "after removing k\(removed), k\(present)")
            }
        }
        #expect(object.keys == ["k18", "k19"])
        object["k20"] = true
        #expect(object["k20"] == true && object["k19"] == .number(JSONNumber(19)))
    }
}

@Suite("JSON strings written with escapes exactly where RFC 8259 needs them")
struct JSONStringWritingTests {
    /// The escaping of RFC 8259 §7, one scalar at a time: the reference the word-at-a-time search must agree with.
    static func reference(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20: output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }

    @Test("each special byte is escaped at every position of the 8-byte words and of the tail; its neighbours are not")
    func everyPositionOfAWord() {
        let specials: [Character] = ["\"", "\\", "\u{0}", "\u{1F}", "\n", "\u{08}"]
        // The bytes next to the special ones in value (0x20, 0x21, 0x23, 0x5B, 0x5D), DEL and multi-byte text.
        let plain: [Character] = [" ", "!", "#", "[", "]", "\u{7F}", "é", "€"]
        for length in 0...25 {
            for filler in plain {
                let base = String(repeating: filler, count: length)
                #expect(JSONValue.string(base).serialized() == Self.reference(base), "\(length) × \(filler)")
                for position in 0..<length {
                    for special in specials {
                        var characters = Array(base)
                        characters[position] = special
                        let text = String(characters)
                        #expect(
                            JSONValue.string(text).serialized() == Self.reference(text),
                            "length \(length), \(special.unicodeScalars.first?.value ?? 0) at \(position)")
                    }
                }
            }
        }
    }

    @Test("random text written and parsed back is the same text")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let scalars = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                Unicode.Scalar(UInt8.random(in: 0...0x7F, using: &generator))
            }
            let text = String(String.UnicodeScalarView(scalars))
            let written = JSONValue.string(text).serialized()
            #expect(written == Self.reference(text))
            #expect(try JSONParser().parse(written) == .string(text))
        }
    }
}
