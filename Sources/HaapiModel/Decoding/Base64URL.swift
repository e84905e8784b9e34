/// base64url without padding (RFC 4648 §5, as JOSE and WebAuthn use it).
///
/// Decoding is strict: only the URL-safe alphabet, no padding, no whitespace, and no non-zero bits
/// left over in the final character, so each value has exactly one encoding.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let reverse: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in alphabet.enumerated() { table[Int(symbol)] = UInt8(value) }
        return table
    }()

    /// Base64url without padding (RFC 4648 §5).
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // Arrays, Data and native strings' UTF-8 lend their bytes: encode from the buffer without a copy.
        if let encoded = bytes.withContiguousStorageIfAvailable(encode(buffer:)) { return encoded }
        return Array(bytes).withUnsafeBufferPointer(encode(buffer:))
    }

    /// The base64url form of a string's UTF-8 bytes, without padding.
    public static func encode(_ text: String) -> String {
        var text = text
        return text.withUTF8(encode(buffer:))
    }

    /// Appends the base64url form of `bytes` (no padding) to `output`, for a caller assembling a token from
    /// bytes (a JWS, a sealed token) without a `String` per segment.
    public static func append<Bytes: Sequence>(_ bytes: Bytes, to output: inout [UInt8]) where Bytes.Element == UInt8 {
        func append(_ input: UnsafeBufferPointer<UInt8>) {
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: encodedLength(input.count)))
            _ = output.withUnsafeMutableBufferPointer {
                encode(input, into: UnsafeMutableBufferPointer(rebasing: $0[start...]))
            }
        }
        if bytes.withContiguousStorageIfAvailable(append) == nil { Array(bytes).withUnsafeBufferPointer(append) }
    }

    private static func encodedLength(_ count: Int) -> Int { (count * 4 + 2) / 3 }

    /// Writes the symbols straight into the string's storage: this runs for every token and proof.
    private static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: encodedLength(input.count)) { encode(input, into: $0) }
    }

    /// Writes the symbols of `input` to the start of `output` (which holds at least `encodedLength` bytes) and
    /// returns how many it wrote.
    private static func encode(
        _ input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        alphabet.withUnsafeBufferPointer { symbols in
            var index = 0
            var written = 0
            func put(_ chunk: UInt32, _ count: Int) {
                for position in 0..<count {
                    output[written] = symbols[Int(chunk >> (18 - 6 * UInt32(position)) & 63)]
                    written += 1
                }
            }
            while index + 3 <= input.count {
                put(UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2]), 4)
                index += 3
            }
            switch input.count - index {
            case 1: put(UInt32(input[index]) << 16, 2)
            case 2: put(UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8, 3)
            default: break
            }
            return written
        }
    }

    /// Decodes base64url as browsers accept it (after WHATWG's forgiving-base64): with or without `=` padding (up to two, at the end of a
    /// length that is a multiple of four) and with unused low bits of the last symbol set, but never a
    /// symbol outside the base64url alphabet. For what servers send (WebAuthn ids and challenges), where
    /// refusing an id a browser would take helps nobody.
    public static func decodeForgiving(_ text: some StringProtocol) -> [UInt8]? {
        var symbols = Substring(text)
        if symbols.utf8.count % 4 == 0 {
            for _ in 0..<2 where symbols.hasSuffix("=") { symbols = symbols.dropLast() }
        }
        return decode(symbols, allowingNonZeroTrailingBits: true)
    }

    /// The decoded bytes, or `nil` when the text is not canonical unpadded base64url. With
    /// `allowingNonZeroTrailingBits`, unused low bits of the last symbol may be set, as browsers' base64url
    /// decoders allow (then two texts can decode to the same bytes: use it only where that is harmless).
    public static func decode(_ text: some StringProtocol, allowingNonZeroTrailingBits: Bool = false) -> [UInt8]? {
        decode(utf8: text.utf8, allowingNonZeroTrailingBits: allowingNonZeroTrailingBits)
    }

    /// Decodes UTF-8 text (a slice of a larger string, say) without copying it first.
    public static func decode<Symbols: Collection<UInt8>>(
        utf8 symbols: Symbols, allowingNonZeroTrailingBits: Bool = false
    ) -> [UInt8]? {
        // Native strings and arrays lend their bytes: decode from the buffer, not index by index.
        if let decoded = symbols.withContiguousStorageIfAvailable({
            decode(buffer: $0, allowingNonZeroTrailingBits: allowingNonZeroTrailingBits)
        }) {
            return decoded
        }
        return Array(symbols).withUnsafeBufferPointer {
            decode(buffer: $0, allowingNonZeroTrailingBits: allowingNonZeroTrailingBits)
        }
    }

    private static func decode(
        buffer symbols: UnsafeBufferPointer<UInt8>, allowingNonZeroTrailingBits: Bool
    ) -> [UInt8]? {
        guard symbols.count % 4 != 1 else { return nil }
        var valid = true
        // Decoded into the array's storage through the table's buffer: no growth checks, no bounds-checked
        // array reads. 4 symbols make 3 bytes and a tail of 2 or 3 makes 1 or 2, so count * 3 / 4 is exact
        // (count % 4 == 1 was refused above).
        let output = reverse.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: symbols.count * 3 / 4) { bytes, initialized in
                // Whole groups of 4 symbols first: each value is 0…63, so one test of the four ORed together
                // finds an invalid symbol (0xFF).
                var index = 0
                var written = 0
                while index + 4 <= symbols.count {
                    let a = UInt32(table[Int(symbols[index])])
                    let b = UInt32(table[Int(symbols[index + 1])])
                    let c = UInt32(table[Int(symbols[index + 2])])
                    let d = UInt32(table[Int(symbols[index + 3])])
                    guard (a | b | c | d) & 0xC0 == 0 else {
                        valid = false
                        initialized = 0
                        return
                    }
                    let group = a << 18 | b << 12 | c << 6 | d
                    bytes[written] = UInt8(truncatingIfNeeded: group >> 16)
                    bytes[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                    bytes[written + 2] = UInt8(truncatingIfNeeded: group)
                    written += 3
                    index += 4
                }
                // The tail: 2 symbols make 1 byte (4 bits left over), 3 make 2 (2 bits left over).
                var tail: UInt32 = 0
                for symbol in symbols[index...] {
                    let value = UInt32(table[Int(symbol)])
                    guard value & 0xC0 == 0 else {
                        valid = false
                        initialized = 0
                        return
                    }
                    tail = tail << 6 | value
                }
                switch symbols.count - index {
                case 2:
                    bytes[written] = UInt8(truncatingIfNeeded: tail >> 4)
                    written += 1
                    if tail & 0x0F != 0 && !allowingNonZeroTrailingBits { valid = false }
                case 3:
                    bytes[written] = UInt8(truncatingIfNeeded: tail >> 10)
                    bytes[written + 1] = UInt8(truncatingIfNeeded: tail >> 2)
                    written += 2
                    // Leftover bits must be zero; otherwise two different strings would decode to the same bytes.
                    if tail & 0x03 != 0 && !allowingNonZeroTrailingBits { valid = false }
                default:
                    break
                }
                initialized = written
            }
        }
        return valid ? output : nil
    }
}
