import Foundation

/// A strict RFC 8259 parser with limits, for documents that come from the network.
///
/// It never traps on input: size, depth, UTF-8 and syntax problems all become a `HaapiDecodingError`
/// that names the path being parsed when the problem was found. Duplicate member names are rejected,
/// because two readers could otherwise disagree about what the server said.
public struct JSONParser: Sendable {
    /// How large and how deep a document may be.
    public struct Limits: Sendable, Hashable {
        /// The largest document, in bytes.
        public var maxBytes: Int
        /// How deep arrays and objects may nest.
        public var maxDepth: Int

        /// Limits; 4 MiB and 128 levels by default.
        public init(maxBytes: Int = 4 * 1024 * 1024, maxDepth: Int = 128) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }

        /// Generous enough for any HAAPI representation (the largest published one is 15 kB, and a
        /// QR-code data link a few kB more), small enough that a hostile response cannot exhaust memory.
        public static let `default` = Limits()
    }

    /// The limits this parser enforces.
    public let limits: Limits

    /// A parser with the given limits.
    public init(limits: Limits = .default) {
        self.limits = limits
    }

    /// Parses a document (RFC 8259, UTF-8, duplicate members refused); throws `HaapiDecodingError`.
    public func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { raw in
            try parse(
                UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count))
        }
    }

    /// Parses a document held in a string.
    public func parse(_ text: String) throws -> JSONValue {
        var text = text
        return try text.withUTF8 { try parse($0) }
    }

    /// Parses a document from bytes in memory.
    public func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw HaapiDecodingError(
                path: .root, reason: .documentTooLarge(byteCount: bytes.count, limit: limits.maxBytes))
        }
        if let offset = UTF8Validation.firstInvalidByte(in: bytes) {
            throw HaapiDecodingError(path: .root, reason: .invalidUTF8(byteOffset: offset))
        }
        var scanner = Scanner(bytes: bytes, maxDepth: limits.maxDepth)
        scanner.skipWhitespace()
        let value = try scanner.parseValue()
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.syntaxError("unexpected content after the document") }
        return value
    }
}

private struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var position = 0
    var depth = 0
    var path = JSONPath.root

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var isAtEnd: Bool { position >= bytes.count }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    func syntaxError(_ detail: String) -> HaapiDecodingError {
        HaapiDecodingError(path: path, reason: .syntax(detail: detail, byteOffset: position))
    }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
        }
    }

    mutating func parseValue() throws -> JSONValue {
        guard let byte = current else { throw syntaxError("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw syntaxError("unexpected character '\(printable(byte))'")
        }
    }

    private mutating func enterContainer() throws {
        depth += 1
        guard depth <= maxDepth else {
            throw HaapiDecodingError(path: path, reason: .nestingTooDeep(limit: maxDepth))
        }
    }

    private mutating func parseObject() throws -> JSONValue {
        try enterContainer()
        position += 1
        var object = JSONObject()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(object)
        }
        // Most objects on the wire have a handful of members (a DPoP proof's claims, a link, a field):
        // room for four up front makes such an object one allocation instead of one per doubling.
        object.reserveCapacity(4)
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw syntaxError("expected a member name") }
            let key = try parseString()
            if object.contains(key) {
                throw HaapiDecodingError(path: path, reason: .duplicateMember(key))
            }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw syntaxError("expected ':' after member name") }
            position += 1
            skipWhitespace()
            path.push(.member(key))
            let value = try parseValue()
            path.pop()
            object.appendAbsent(key, value)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(object)
            default:
                throw syntaxError("expected ',' or '}' in object")
            }
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enterContainer()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            path.push(.index(elements.count))
            elements.append(try parseValue())
            path.pop()
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            default:
                throw syntaxError("expected ',' or ']' in array")
            }
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw syntaxError("unexpected end of input") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for offset in 0..<count where bytes[position + offset] != expected[offset] {
            throw syntaxError("invalid literal")
        }
        position += count
    }

    private mutating func parseNumber() throws -> JSONNumber {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw syntaxError("expected a digit") }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = current, isDigit(next) { throw syntaxError("leading zeros are not allowed") }
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard let next = current, isDigit(next) else { throw syntaxError("expected a digit after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let next = current, isDigit(next) else { throw syntaxError("expected a digit in the exponent") }
            skipDigits()
        }
        let literal = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        return JSONNumber(validatedLiteral: literal)
    }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { position += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func parseString() throws -> String {
        position += 1  // opening quote
        let start = position
        // Fast path: no escapes, so the bytes (already validated as UTF-8) are the string.
        while let byte = current {
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw syntaxError("unescaped control character in string") }
            position += 1
        }
        guard !isAtEnd else { throw syntaxError("unterminated string") }
        var buffer = Array(bytes[start..<position])
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: buffer, as: UTF8.self)
            case UInt8(ascii: "\\"):
                position += 1
                try appendEscape(to: &buffer)
            case 0..<0x20:
                throw syntaxError("unescaped control character in string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw syntaxError("unterminated string")
    }

    private mutating func appendEscape(to buffer: inout [UInt8]) throws {
        guard let escape = current else { throw syntaxError("unterminated escape") }
        position += 1
        switch escape {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try parseHexQuad())
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count,
                    bytes[position + 1] == UInt8(ascii: "u")
                else {
                    throw syntaxError("unpaired surrogate in \\u escape")
                }
                position += 2
                let low = UInt32(try parseHexQuad())
                guard (0xDC00...0xDFFF).contains(low) else { throw syntaxError("unpaired surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw syntaxError("unpaired surrogate in \\u escape")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw syntaxError("invalid \\u escape") }
            buffer.append(contentsOf: Array(String(Character(unicode)).utf8))
        default:
            position -= 1
            throw syntaxError("invalid escape '\\\(printable(escape))'")
        }
    }

    private mutating func parseHexQuad() throws -> UInt16 {
        guard position + 4 <= bytes.count else { throw syntaxError("truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw syntaxError("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    private func printable(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : String(format: "0x%02X", byte)
    }
}

/// UTF-8 validation per RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
enum UTF8Validation {
    static func firstInvalidByte(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upper = 0x9F
            case 0xF0:
                length = 4
                lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upper = 0x8F
            default: return index
            }
            guard index + length <= count else { return index }
            let second = bytes[index + 1]
            guard second >= lower && second <= upper else { return index }
            for offset in 2..<length where bytes[index + offset] & 0xC0 != 0x80 {
                return index
            }
            index += length
        }
        return nil
    }
}
