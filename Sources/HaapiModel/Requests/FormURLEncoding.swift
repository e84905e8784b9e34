import Foundation

/// `application/x-www-form-urlencoded` serialisation (WHATWG URL standard §5.2).
///
/// Only ASCII letters, digits and `*-._` stay as they are; a space becomes `+`; every other byte of the
/// UTF-8 form becomes `%XX`. Getting this wrong corrupts passwords containing `+`, `&` or `=`.
public enum FormURLEncoding {
    /// An `application/x-www-form-urlencoded` body from pairs, in order.
    public static func encode(_ pairs: [(name: String, value: String)]) -> String {
        pairs.map { encodeComponent($0.name) + "=" + encodeComponent($0.value) }.joined(separator: "&")
    }

    /// One name or value, percent-encoded as form encoding requires (a space becomes `+`).
    public static func encodeComponent(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                output += "+"
            default:
                output += "%" + hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0F)]
            }
        }
        return output
    }

    /// Parses `a=b&c=d` back into pairs; `nil` when a percent escape is malformed or not UTF-8.
    public static func decode(_ text: String) -> [(name: String, value: String)]? {
        guard !text.isEmpty else { return [] }
        var pairs: [(name: String, value: String)] = []
        // Split on bytes: "&", "=", "+" and "%" are ASCII, and this runs on every form a server reads.
        for part in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let pair = Substring(part)
            let equals = pair.utf8.firstIndex(of: UInt8(ascii: "="))
            guard let name = decodeComponent(pair[..<(equals ?? pair.endIndex)]) else { return nil }
            let value = equals.map { decodeComponent(pair[pair.utf8.index(after: $0)...]) } ?? ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// One name or value of a form body, decoded (`+` is a space, `%XX` a byte); `nil` when an escape is
    /// malformed or the bytes are not UTF-8.
    public static func decodeComponent(_ text: Substring) -> String? {
        // Nothing escaped: the text is already the value (and valid UTF-8, being a string).
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) { return String(text) }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(0x20)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    private static let hexDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
