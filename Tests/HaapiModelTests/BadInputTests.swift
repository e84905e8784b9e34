import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@Suite("Bad input never crashes and names where it went wrong")
struct BadInputTests {
    @Test("non-JSON")
    func notJSON() {
        expectDecodingError("hello", path: "(root)", reason: .syntax(detail: "unexpected character 'h'", byteOffset: 0))
        expectDecodingError("", path: "(root)", reason: .syntax(detail: "unexpected end of input", byteOffset: 0))
        expectDecodingError(#"{"type":"authentication-step"} trailing"#, path: "(root)")
        expectDecodingError(#"{"type":"authentication-step","actions":[{"template":"form",}]}"#, path: "actions[0]")
    }

    @Test("wrong JSON types name the exact path")
    func wrongTypes() {
        let json = """
            {"type":"authentication-step","actions":[{"template":"form","kind":"login","model":{"href":"/x","method":"POST","fields":[
              {"name":"a","type":"text"},{"name":"b","type":"password"},{"name":7,"type":"username"}]}}]}
            """
        expectDecodingError(
            json, path: "actions[0].model.fields[2].name", reason: .typeMismatch(expected: "string", found: "number"))
        expectDecodingError(
            #"{"type":"authentication-step","actions":{"a":1}}"#, path: "actions",
            reason: .typeMismatch(expected: "array", found: "object"))
        expectDecodingError(
            #"{"type":"authentication-step","links":[{"href":"/a","rel":["x"]}]}"#, path: "links[0].rel")
        expectDecodingError(
            #"{"type":"authentication-step","messages":[{"text":"t","classList":[1]}]}"#,
            path: "messages[0].classList[0]")
        expectDecodingError(#"{"type":5}"#, path: "type", reason: .typeMismatch(expected: "string", found: "number"))
        expectDecodingError(#"[1,2]"#, path: "(root)", reason: .typeMismatch(expected: "object", found: "array"))
        expectDecodingError(
            #"{"type":"authentication-step","actions":[{"template":"form","kind":"login","model":{"href":"/x","method":"P OST"}}]}"#,
            path: "actions[0].model.method")
        expectDecodingError(
            #"{"type":"authentication-step","actions":[{"template":"form","kind":"login","model":{"href":"/x","method":"POST","fields":[{"name":"h","type":"hidden"}]}}]}"#,
            path: "actions[0].model.fields[0].value", reason: .missingMember)
    }

    @Test("a missing type")
    func missingType() {
        expectDecodingError(#"{"actions":[]}"#, path: "type", reason: .missingMember)
        expectDecodingError(#"{"type":null}"#, path: "type", reason: .missingMember)
        expectDecodingError(
            #"{"type":"authentication-step","actions":[{"kind":"login"}]}"#, path: "actions[0].template",
            reason: .missingMember)
    }

    @Test("a 10 MB document is refused before parsing")
    func hugeDocument() {
        let padding = String(repeating: " ", count: 10 * 1024 * 1024)
        expectDecodingError(
            #"{"type":"authentication-step"}"# + padding, path: "(root)",
            reason: .documentTooLarge(byteCount: 10 * 1024 * 1024 + 30, limit: 4 * 1024 * 1024))
        // A caller may raise the limit; the same document then parses.
        let roomy = HaapiDecoder(limits: .init(maxBytes: 16 * 1024 * 1024))
        #expect(throws: Never.self) { try roomy.decode(Data((#"{"type":"authentication-step"}"# + padding).utf8)) }
    }

    @Test("nesting 3000 levels deep stops at the depth limit without exhausting the stack")
    func deepNesting() throws {
        let arrays = String(repeating: "[", count: 3000) + String(repeating: "]", count: 3000)
        do {
            _ = try HaapiDecoder().decode(Data(#"{"type":"authentication-step","properties":\#(arrays)}"#.utf8))
            Issue.record("deep nesting was accepted")
        } catch let error as HaapiDecodingError {
            #expect(error.reason == .nestingTooDeep(limit: 128))
            #expect(error.path.description.hasPrefix("properties[0][0][0]"))
        }
        let objects = String(repeating: #"{"a":"#, count: 3000) + "1" + String(repeating: "}", count: 3000)
        expectDecodingError(
            objects, path: Array(repeating: "a", count: 128).joined(separator: "."), reason: .nestingTooDeep(limit: 128)
        )
    }

    @Test(
        "invalid UTF-8 is reported with its byte offset",
        arguments: [
            ([0xFF], 0), ([0x7B, 0x22, 0xC3, 0x28], 2), ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),
            ([0x22, 0xE0, 0x80, 0x80, 0x22], 1),
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1), ([0x22, 0xC0, 0xAF, 0x22], 1), ([0x22, 0xE2, 0x82], 1),
        ] as [([UInt8], Int)])
    func invalidUTF8(bytes: [UInt8], offset: Int) {
        #expect(throws: HaapiDecodingError(path: .root, reason: .invalidUTF8(byteOffset: offset))) {
            try HaapiDecoder().decode(bytes)
        }
    }

    @Test("strings: escapes, surrogate pairs, control characters, lone surrogates")
    func strings() throws {
        let value = try JSONParser().parse(#"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\ud83d\ude00", "é😀"]"#)
        #expect(value == ["a\"b\\c/d\u{08}\u{0C}\n\r\t", "é😀", "é😀"])
        #expect(throws: HaapiDecodingError.self) { try JSONParser().parse(#"["\ud83d"]"#) }
        #expect(throws: HaapiDecodingError.self) { try JSONParser().parse(#"["\ude00x"]"#) }
        #expect(throws: HaapiDecodingError.self) { try JSONParser().parse("[\"a\u{01}b\"]") }
        #expect(throws: HaapiDecodingError.self) { try JSONParser().parse(#"["\x"]"#) }
        #expect(throws: HaapiDecodingError.self) { try JSONParser().parse(#"["\u12"]"#) }
        #expect(throws: HaapiDecodingError.self) { try JSONParser().parse(#""unterminated"#) }
    }

    @Test("numbers follow RFC 8259 and keep their literal text")
    func numbers() throws {
        #expect(
            try JSONParser().parse("[0,-0,1.5e10,123456789012345678901234567890,-2.25E-3]").serialized()
                == "[0,-0,1.5e10,123456789012345678901234567890,-2.25E-3]")
        for bad in ["01", "1.", ".5", "-", "1e", "+1", "NaN", "Infinity", "0x10"] {
            #expect(throws: HaapiDecodingError.self, "\(bad)") { try JSONParser().parse("[\(bad)]") }
        }
    }

    @Test("duplicate member names are refused")
    func duplicates() {
        expectDecodingError(
            #"{"type":"authentication-step","type":"polling-step"}"#, path: "(root)", reason: .duplicateMember("type"))
    }

    @Test("serialisation escapes what JSON requires and round-trips")
    func serialisation() throws {
        let oneAndAHalf = try #require(JSONNumber(1.5))
        let value: JSONValue = ["k\"ey": ["a\u{01}\n", .null, true, .number(oneAndAHalf)]]
        let text = value.serialized()
        #expect(text == #"{"k\"ey":["a\u0001\n",null,true,1.5]}"#)
        #expect(try JSONParser().parse(text) == value)
        #expect(JSONNumber(Double.nan) == nil)
        // Every escape JSON has a short form for, other controls as \u00XX, the rest of UTF-8 as it is.
        let escapes: JSONValue = ["q\"b\\n\nr\rt\tb\u{08}f\u{0C}\u{1F}\u{7F}é€😀/"]
        #expect(escapes.serialized() == #"["q\"b\\n\nr\rt\tb\bf\f\u001f\#u{7F}é€😀/"]"#)
        #expect(escapes.serializedBytes() == Array(escapes.serialized().utf8))
        #expect(try JSONParser().parse(escapes.serialized()) == escapes)
    }

    @Test("base64url appended to bytes is the same text as encoded to a string")
    func base64URLAppend() {
        for length in 0...7 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 97 + 251) }
            var output = Array("prefix.".utf8)
            Base64URL.append(bytes, to: &output)
            #expect(String(decoding: output, as: UTF8.self) == "prefix." + Base64URL.encode(bytes))
            #expect(Base64URL.decode(utf8: output.dropFirst(7)) == bytes)
        }
    }
}
