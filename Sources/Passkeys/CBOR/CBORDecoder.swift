import Foundation
@_spi(Tooling) import HaapiModel

/// Why CBOR input was refused; `offset` is where in the input.
public struct CBORDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong with the input.
    public enum Reason: Sendable, Equatable {
        /// The input ended inside an item.
        case truncated
        /// Bytes followed the top-level item.
        case trailingBytes
        /// Arrays, maps or tags nested deeper than `Limits.maxDepth`.
        case tooDeep
        /// The input is larger than `Limits.maxBytes`.
        case tooLarge
        /// More items than `Limits.maxItems`.
        case tooManyItems
        /// An indefinite-length item, which WebAuthn's CBOR does not allow.
        case indefiniteLength
        /// Additional information 28 to 30, which RFC 8949 reserves.
        case reservedAdditionalInformation
        /// A text string that is not UTF-8.
        case invalidUTF8
        /// A map with the same key twice.
        case duplicateMapKey
        /// With `requireCanonical`: an item not in CTAP2 canonical form, and which rule it breaks.
        case nonCanonical(String)
        /// A simple value other than false, true, null and undefined.
        case unsupportedSimpleValue(UInt8)
    }

    /// What was wrong.
    public let reason: Reason
    /// Where in the input, in bytes from its start.
    public let offset: Int

    public var description: String { "CBOR: \(reason) at byte \(offset)" }
}

/// Strict CBOR decoding for data from other parties (attestation objects, COSE keys).
///
/// Only definite lengths; text must be UTF-8; map keys must be unique; nesting, total size and the
/// number of items are bounded. With `requireCanonical`, integers and lengths must use their shortest
/// form (what CTAP2 authenticators produce).
public struct CBORDecoder: Sendable {
    /// Bounds on what a decoder accepts, so hostile input cannot exhaust memory or the stack.
    public struct Limits: Sendable {
        /// The largest input accepted (1 MiB); a length beyond the input ends in `truncated`.
        public var maxBytes = 1 << 20
        /// How deep arrays, maps and tags may nest.
        public var maxDepth = 16
        /// How many items the input may hold in all.
        public var maxItems = 10_000
        /// The default limits.
        public init() {}
    }

    /// The bounds this decoder enforces.
    public let limits: Limits
    /// Whether items must be in CTAP2 canonical form (shortest lengths, sorted map keys).
    public let requireCanonical: Bool

    /// A decoder with the given bounds; canonical form is checked only when asked for.
    public init(limits: Limits = Limits(), requireCanonical: Bool = false) {
        self.limits = limits
        self.requireCanonical = requireCanonical
    }

    /// Decodes exactly one item that fills `data`.
    public func decode(_ data: Data) throws(CBORDecodingError) -> CBORValue {
        guard data.count <= limits.maxBytes else { throw CBORDecodingError(reason: .tooLarge, offset: 0) }
        var reader = Reader(bytes: [UInt8](data), decoder: self)
        let value = try reader.item(depth: 0)
        guard reader.position == reader.bytes.count else {
            throw CBORDecodingError(reason: .trailingBytes, offset: reader.position)
        }
        return value
    }

    /// Decodes one item at the start of `data` and says how many bytes it used (authenticator data carries
    /// a COSE key followed by extensions).
    public func decodePrefix(_ data: Data) throws(CBORDecodingError) -> (value: CBORValue, length: Int) {
        guard data.count <= limits.maxBytes else { throw CBORDecodingError(reason: .tooLarge, offset: 0) }
        var reader = Reader(bytes: [UInt8](data), decoder: self)
        let value = try reader.item(depth: 0)
        return (value, reader.position)
    }

    struct Reader {
        let bytes: [UInt8]
        let decoder: CBORDecoder
        var position = 0
        var items = 0

        func fail(_ reason: CBORDecodingError.Reason, at offset: Int? = nil) -> CBORDecodingError {
            CBORDecodingError(reason: reason, offset: offset ?? position)
        }

        mutating func byte() throws(CBORDecodingError) -> UInt8 {
            guard position < bytes.count else { throw fail(.truncated) }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func take(_ count: UInt64) throws(CBORDecodingError) -> [UInt8] {
            guard count <= UInt64(bytes.count - position) else { throw fail(.truncated) }
            let end = position + Int(count)
            defer { position = end }
            return Array(bytes[position..<end])
        }

        mutating func argument(_ info: UInt8, start: Int) throws(CBORDecodingError) -> UInt64 {
            let value: UInt64
            let minimum: UInt64
            switch info {
            case 0..<24: return UInt64(info)
            case 24:
                value = UInt64(try byte())
                minimum = 24
            case 25:
                value = try take(2).reduce(0) { $0 << 8 | UInt64($1) }
                minimum = 0x100
            case 26:
                value = try take(4).reduce(0) { $0 << 8 | UInt64($1) }
                minimum = 0x10000
            case 27:
                value = try take(8).reduce(0) { $0 << 8 | UInt64($1) }
                minimum = 0x1_0000_0000
            case 31: throw fail(.indefiniteLength, at: start)
            default: throw fail(.reservedAdditionalInformation, at: start)
            }
            if decoder.requireCanonical, value < minimum {
                throw fail(.nonCanonical("a longer encoding than needed"), at: start)
            }
            return value
        }

        mutating func item(depth: Int) throws(CBORDecodingError) -> CBORValue {
            guard depth <= decoder.limits.maxDepth else { throw fail(.tooDeep) }
            items += 1
            guard items <= decoder.limits.maxItems else { throw fail(.tooManyItems) }
            let start = position
            let initial = try byte()
            let major = initial >> 5
            let info = initial & 0x1F
            switch major {
            case 0: return .unsigned(try argument(info, start: start))
            case 1: return .negative(try argument(info, start: start))
            case 2: return .bytes(Data(try take(try argument(info, start: start))))
            case 3:
                let raw = try take(try argument(info, start: start))
                // Not the standard library's String(validating:as:): it needs iOS 18 and macOS 15.
                guard let text = String(strictUTF8: raw) else { throw fail(.invalidUTF8, at: start) }
                return .text(text)
            case 4:
                let count = try argument(info, start: start)
                guard count <= UInt64(bytes.count - position) else { throw fail(.truncated) }
                var elements: [CBORValue] = []
                for _ in 0..<count { elements.append(try item(depth: depth + 1)) }
                return .array(elements)
            case 5:
                let count = try argument(info, start: start)
                guard count <= UInt64(bytes.count - position) / 2 else { throw fail(.truncated) }
                var entries: [CBORMapEntry] = []
                // Keys are compared by their canonical encoding: values that encode alike (NaNs with other
                // payloads, floats in other widths) are one key, as they are after re-encoding (found by fuzzing).
                var seen = Set<Data>()
                var previousKey: [UInt8]?
                for _ in 0..<count {
                    let keyStart = position
                    let key = try item(depth: depth + 1)
                    let keyBytes = Array(bytes[keyStart..<position])
                    guard seen.insert(CBOREncoder.encode(key)).inserted else {
                        throw fail(.duplicateMapKey, at: keyStart)
                    }
                    if decoder.requireCanonical, let previousKey,
                        !CBOREncoder.canonicalOrder(Data(previousKey), Data(keyBytes))
                    {
                        throw fail(.nonCanonical("map keys out of canonical order"), at: keyStart)
                    }
                    previousKey = keyBytes
                    entries.append(CBORMapEntry(key, try item(depth: depth + 1)))
                }
                return .map(entries)
            case 6:
                let tag = try argument(info, start: start)
                return .tagged(tag, try item(depth: depth + 1))
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                case 23: return .undefined
                case 25: return .float(doubleFromHalf(UInt16(try take(2).reduce(0) { $0 << 8 | UInt64($1) })))
                case 26:
                    return .float(Double(Float(bitPattern: UInt32(try take(4).reduce(0) { $0 << 8 | UInt64($1) }))))
                case 27: return .float(Double(bitPattern: try take(8).reduce(0) { $0 << 8 | UInt64($1) }))
                case 31: throw fail(.indefiniteLength, at: start)
                case 24: throw fail(.unsupportedSimpleValue(try byte()), at: start)
                default: throw fail(.unsupportedSimpleValue(info), at: start)
                }
            }
        }
    }
}
