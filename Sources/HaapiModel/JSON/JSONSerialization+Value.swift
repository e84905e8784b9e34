/// Writing JSON values back out, for `rawJSONString` and for request bodies.
extension JSONValue {
    /// Compact JSON text. Member order is kept unless `sortedKeys` is set (used for canonical forms).
    public func serialized(sortedKeys: Bool = false) -> String {
        var output = ""
        write(to: &output, sortedKeys: sortedKeys)
        return output
    }

    private func write(to output: inout String, sortedKeys: Bool) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let number): output += number.literal
        case .string(let text): JSONValue.writeString(text, to: &output)
        case .array(let elements):
            output += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { output += "," }
                element.write(to: &output, sortedKeys: sortedKeys)
            }
            output += "]"
        case .object(let object):
            output += "{"
            let members = sortedKeys ? object.members.sorted { $0.key < $1.key } : object.members
            for (position, member) in members.enumerated() {
                if position > 0 { output += "," }
                JSONValue.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output, sortedKeys: sortedKeys)
            }
            output += "}"
        }
    }

    /// Whether `text` holds a quote, a backslash or a control character. Native strings lend their UTF-8
    /// buffer, which is scanned directly (iterating the UTF-8 view cost as much as the rest of writing).
    private static func needsEscaping(_ text: String) -> Bool {
        func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return true
            }
            return false
        }
        if let found = text.utf8.withContiguousStorageIfAvailable(scan) { return found }
        var copy = text
        return copy.withUTF8(scan)
    }

    static func writeString(_ text: String, to output: inout String) {
        output += "\""
        // Most strings (ids, tokens, URLs) need no escaping: copy them whole instead of scalar by scalar.
        if !needsEscaping(text) {
            output += text
            output += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
