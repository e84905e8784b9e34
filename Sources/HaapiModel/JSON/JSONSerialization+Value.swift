/// Writing JSON values back out, for `rawJSONString`, request bodies and server responses.
extension JSONValue {
    /// Compact JSON text. Member order is kept unless `sortedKeys` is set (used for canonical forms).
    public func serialized(sortedKeys: Bool = false) -> String {
        String(decoding: serializedBytes(sortedKeys: sortedKeys), as: UTF8.self)
    }

    /// The UTF-8 bytes of `serialized(sortedKeys:)`, for a caller that sends or signs bytes: no `String`
    /// is built on the way.
    public func serializedBytes(sortedKeys: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output, sortedKeys: sortedKeys)
        return output
    }

    /// Appends the compact JSON text to `output`. Bytes rather than a `String`: appending to a string checks
    /// its capacity and encoding on every piece, which cost as much as the rest of writing a response.
    public func write(to output: inout [UInt8], sortedKeys: Bool = false) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let number): Self.appendUTF8(number.literal, to: &output)
        case .string(let text): JSONValue.writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output, sortedKeys: sortedKeys)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            let members = sortedKeys ? object.members.sorted { $0.key < $1.key } : object.members
            for (position, member) in members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output, sortedKeys: sortedKeys)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// A string's UTF-8, from its own buffer when it has one (native strings do).
    private static func appendUTF8(_ text: String, to output: inout [UInt8]) {
        if text.utf8.withContiguousStorageIfAvailable({ output.append(contentsOf: $0) }) == nil {
            output.append(contentsOf: text.utf8)
        }
    }

    /// A JSON string literal: `"`, `\` and control characters escaped (RFC 8259 §7), every other byte of the
    /// UTF-8 form as it is (a multi-byte character never contains a byte below 0x80, so it passes through whole).
    static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        func needsEscape(_ byte: UInt8) -> Bool {
            byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
        }
        func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            // Most strings (ids, tokens, URLs) need no escaping: copy them whole.
            guard bytes.contains(where: needsEscape) else {
                output.append(contentsOf: bytes)
                return
            }
            for byte in bytes {
                guard needsEscape(byte) else {
                    output.append(byte)
                    continue
                }
                output.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
                case UInt8(ascii: "\n"): output.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): output.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): output.append(UInt8(ascii: "t"))
                case 0x08: output.append(UInt8(ascii: "b"))
                case 0x0C: output.append(UInt8(ascii: "f"))
                default:
                    output.append(contentsOf: "u00".utf8)
                    output.append(hexDigits[Int(byte >> 4)])
                    output.append(hexDigits[Int(byte & 0x0F)])
                }
            }
        }
        if text.utf8.withContiguousStorageIfAvailable(write) == nil {
            var copy = text
            copy.withUTF8(write)
        }
        output.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
