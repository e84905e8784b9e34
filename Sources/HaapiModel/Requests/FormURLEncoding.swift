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
        var text = text
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// Parses a form from its bytes (a request body as received); `nil` when a percent escape is malformed or a
    /// name or value is not UTF-8. Empty parts (`a=1&&b=2`) are skipped; a part without `=` has an empty value.
    /// One pass over the bytes, with no `String` made for the body or its parts: this runs on every form a
    /// server reads.
    public static func decode(utf8 bytes: UnsafeBufferPointer<UInt8>) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        var start = 0
        while start < bytes.count {
            var end = start
            var equals: Int?
            while end < bytes.count, bytes[end] != UInt8(ascii: "&") {
                if equals == nil, bytes[end] == UInt8(ascii: "=") { equals = end }
                end += 1
            }
            if end > start {
                guard let name = component(UnsafeBufferPointer(rebasing: bytes[start..<(equals ?? end)])),
                    let value = equals.map({ component(UnsafeBufferPointer(rebasing: bytes[($0 + 1)..<end])) }) ?? ""
                else { return nil }
                pairs.append((name, value))
            }
            start = end + 1
        }
        return pairs
    }

    /// One name or value of a form body, decoded (`+` is a space, `%XX` a byte); `nil` when an escape is
    /// malformed or the bytes are not UTF-8.
    public static func decodeComponent(_ text: Substring) -> String? {
        var text = text
        return text.withUTF8(component)
    }

    private static func component(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        // Nothing escaped (ids, grant types, most values): the bytes are the value.
        guard bytes.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "%") }) else {
            return String(strictUTF8: bytes)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "+"):
                decoded.append(0x20)
            case UInt8(ascii: "%"):
                guard index + 2 <= bytes.count, let high = hexValue(bytes[index]),
                    let low = hexValue(bytes[index + 1])
                else { return nil }
                decoded.append(high << 4 | low)
                index += 2
            default:
                decoded.append(byte)
            }
        }
        return String(strictUTF8: decoded)
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
