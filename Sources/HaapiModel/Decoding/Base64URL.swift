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
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
            output.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        switch input.count - index {
        case 1:
            let chunk = UInt32(input[index]) << 16
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
        case 2:
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The base64url form of a string's UTF-8 bytes, without padding.
    public static func encode(_ text: String) -> String {
        encode(Array(text.utf8))
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
        var output = [UInt8]()
        output.reserveCapacity(symbols.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        let reverse = Self.reverse
        for symbol in symbols {
            let value = reverse[Int(symbol)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero; otherwise two different strings would decode to the same bytes.
        guard accumulator == 0 || allowingNonZeroTrailingBits else { return nil }
        return output
    }
}
