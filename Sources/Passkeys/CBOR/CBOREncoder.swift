import Foundation

/// Writes CBOR the CTAP2 canonical way: the shortest encoding of every length and integer, definite
/// lengths only, and map keys ordered by major type, then encoded length, then bytes.
public enum CBOREncoder {
    /// The value's CTAP2 canonical encoding: shortest lengths, map keys in canonical order.
    public static func encode(_ value: CBORValue) -> Data {
        var output = Data()
        write(value, into: &output)
        return output
    }

    static func write(_ value: CBORValue, into output: inout Data) {
        switch value {
        case .unsigned(let n): head(0, n, &output)
        case .negative(let n): head(1, n, &output)
        case .bytes(let data):
            head(2, UInt64(data.count), &output)
            output.append(data)
        case .text(let text):
            let utf8 = Data(text.utf8)
            head(3, UInt64(utf8.count), &output)
            output.append(utf8)
        case .array(let items):
            head(4, UInt64(items.count), &output)
            for item in items { write(item, into: &output) }
        case .map(let entries):
            head(5, UInt64(entries.count), &output)
            let encoded = entries.map { (key: encode($0.key), value: $0.value) }
            for entry in encoded.sorted(by: { canonicalOrder($0.key, $1.key) }) {
                output.append(entry.key)
                write(entry.value, into: &output)
            }
        case .tagged(let tag, let inner):
            head(6, tag, &output)
            write(inner, into: &output)
        case .bool(let flag): output.append(flag ? 0xF5 : 0xF4)
        case .null: output.append(0xF6)
        case .undefined: output.append(0xF7)
        case .float(let number): writeFloat(number, &output)
        }
    }

    /// CTAP2 §8 canonical key order: lower major type first; within one, shorter encodings first, then bytewise.
    static func canonicalOrder(_ a: Data, _ b: Data) -> Bool {
        let majorA = (a.first ?? 0) >> 5
        let majorB = (b.first ?? 0) >> 5
        if majorA != majorB { return majorA < majorB }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }

    static func head(_ major: UInt8, _ argument: UInt64, _ output: inout Data) {
        let type = major << 5
        switch argument {
        case 0..<24: output.append(type | UInt8(argument))
        case 24...0xFF: output.append(contentsOf: [type | 24, UInt8(argument)])
        case 0x100...0xFFFF:
            output.append(type | 25)
            appendBigEndian(argument, bytes: 2, &output)
        case 0x10000...0xFFFF_FFFF:
            output.append(type | 26)
            appendBigEndian(argument, bytes: 4, &output)
        default:
            output.append(type | 27)
            appendBigEndian(argument, bytes: 8, &output)
        }
    }

    static func appendBigEndian(_ value: UInt64, bytes: Int, _ output: inout Data) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
            output.append(UInt8((value >> UInt64(shift)) & 0xFF))
        }
    }

    /// The shortest float that keeps the value (RFC 8949 §4.2.2 preferred serialisation).
    static func writeFloat(_ number: Double, _ output: inout Data) {
        if let half = float16Bits(exactly: number) {
            output.append(0xF9)
            appendBigEndian(UInt64(half), bytes: 2, &output)
        } else if Double(Float(number)) == number || number.isNaN {
            output.append(0xFA)
            appendBigEndian(UInt64(Float(number).bitPattern), bytes: 4, &output)
        } else {
            output.append(0xFB)
            appendBigEndian(number.bitPattern, bytes: 8, &output)
        }
    }
}

/// IEEE 754 half precision, written by hand because Float16 is not available on every platform Swift runs on.
func float16Bits(exactly value: Double) -> UInt16? {
    if value.isNaN { return 0x7E00 }
    if value.isInfinite { return value > 0 ? 0x7C00 : 0xFC00 }
    let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
    let magnitude = abs(value)
    if magnitude == 0 { return sign }
    let exponent = Int(magnitude.exponent)
    if exponent >= -14, exponent <= 15 {
        // Normal: 10 fraction bits must hold the significand exactly.
        let scaled = magnitude.significand * 1024
        guard scaled == scaled.rounded() else { return nil }
        return sign | UInt16(exponent + 15) << 10 | (UInt16(scaled) & 0x3FF)
    }
    if exponent >= -24, exponent < -14 {
        // Subnormal: value = fraction × 2^-24.
        let fraction = magnitude * 16_777_216
        guard fraction == fraction.rounded(), fraction < 1024 else { return nil }
        return sign | UInt16(fraction)
    }
    return nil
}

func doubleFromHalf(_ bits: UInt16) -> Double {
    let sign: Double = bits & 0x8000 != 0 ? -1 : 1
    let exponent = Int((bits >> 10) & 0x1F)
    let fraction = Double(bits & 0x3FF)
    switch exponent {
    case 0: return sign * fraction * pow(2, -24)
    case 31: return fraction == 0 ? sign * .infinity : .nan
    default: return sign * (1 + fraction / 1024) * pow(2, Double(exponent - 15))
    }
}
