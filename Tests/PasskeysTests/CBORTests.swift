import Foundation
@_spi(Tooling) import Passkeys
import Testing

extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        self.init(bytes)
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

@Suite("CBOR")
struct CBORTests {
    /// RFC 8949 Appendix A: value → encoding, both directions (the preferred serialisations).
    static let vectors: [(CBORValue, String)] = [
        (0, "00"), (1, "01"), (10, "0a"), (23, "17"), (24, "1818"), (25, "1819"), (100, "1864"), (1000, "1903e8"),
        (1_000_000, "1a000f4240"), (.unsigned(1_000_000_000_000), "1b000000e8d4a51000"),
        (.unsigned(18_446_744_073_709_551_615), "1bffffffffffffffff"),
        (.negative(18_446_744_073_709_551_615), "3bffffffffffffffff"),
        (-1, "20"), (-10, "29"), (-100, "3863"), (-1000, "3903e7"),
        (.float(0.0), "f90000"), (.float(-0.0), "f98000"), (.float(1.0), "f93c00"), (.float(1.1), "fb3ff199999999999a"),
        (.float(1.5), "f93e00"), (.float(65504.0), "f97bff"), (.float(100000.0), "fa47c35000"),
        (.float(3.4028234663852886e+38), "fa7f7fffff"),
        (.float(1.0e+300), "fb7e37e43c8800759c"), (.float(5.960464477539063e-8), "f90001"),
        (.float(0.00006103515625), "f90400"),
        (.float(-4.0), "f9c400"), (.float(-4.1), "fbc010666666666666"), (.float(.infinity), "f97c00"),
        (.float(-.infinity), "f9fc00"),
        (false, "f4"), (true, "f5"), (.null, "f6"), (.undefined, "f7"),
        (.tagged(1, 1_363_896_240), "c11a514b67b0"), (.tagged(23, .bytes(Data(hex: "01020304"))), "d74401020304"),
        (.bytes(Data()), "40"), (.bytes(Data(hex: "01020304")), "4401020304"),
        ("", "60"), ("a", "6161"), ("IETF", "6449455446"), ("\"\\", "62225c"), ("\u{00fc}", "62c3bc"),
        ("\u{6c34}", "63e6b0b4"),
        ("\u{10151}", "64f0908591"),
        (.array([]), "80"), (.array([1, 2, 3]), "83010203"),
        (.array([1, .array([2, 3]), .array([4, 5])]), "8301820203820405"),
        (.array((1...25).map { CBORValue.int($0) }), "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
        (.map([]), "a0"), (.map([CBORMapEntry(1, 2), CBORMapEntry(3, 4)]), "a201020304"),
        (.map([CBORMapEntry("a", 1), CBORMapEntry("b", .array([2, 3]))]), "a26161016162820203"),
        (.array(["a", .map([CBORMapEntry("b", "c")])]), "826161a161626163"),
    ]

    @Test("RFC 8949 Appendix A: every vector encodes byte for byte and decodes back")
    func appendixA() throws {
        for (value, hex) in Self.vectors {
            #expect(CBOREncoder.encode(value).hex == hex, "\(value)")
            let decoded = try CBORDecoder().decode(Data(hex: hex))
            if case .float(let expected) = value, case .float(let actual) = decoded {
                #expect(
                    expected.bitPattern == actual.bitPattern
                        || (expected == 0 && actual == 0 && expected.sign == actual.sign), "\(hex)")
            } else {
                #expect(decoded == value, "\(hex)")
            }
        }
        // NaN has no equality; check its encoding and that it decodes to NaN.
        #expect(CBOREncoder.encode(.float(.nan)).hex == "f97e00")
        guard case .float(let nan) = try CBORDecoder().decode(Data(hex: "f97e00")) else {
            Issue.record("NaN")
            return
        }
        #expect(nan.isNaN)
    }

    @Test("maps are written in CTAP2 canonical order whatever order they were built in")
    func canonicalMaps() {
        let map = CBORValue.map([
            CBORMapEntry("authData", 1), CBORMapEntry(-1, 2), CBORMapEntry("fmt", 3), CBORMapEntry(3, 4),
            CBORMapEntry("attStmt", 5), CBORMapEntry(1, 6),
        ])
        // integers (major 0) before negatives (major 1) before text; shorter before longer.
        #expect(
            CBOREncoder.encode(map).hex == "a6" + "0106" + "0304" + "2002" + "63666d7403" + "6761747453746d7405"
                + "6861757468446174610" + "1")
    }

    @Test(
        "strict decoding refuses what an attacker could send",
        arguments: [
            ("5f", CBORDecodingError.Reason.indefiniteLength),
            ("9f01ff", .indefiniteLength),
            ("1c", .reservedAdditionalInformation),
            ("62c3", .truncated),
            ("5a7fffffff00", .truncated),
            ("9b00000000ffffffff", .truncated),
            ("0000", .trailingBytes),
            ("62c328", .invalidUTF8),
            ("62c0af", .invalidUTF8),  // an overlong "/"
            ("63eda080", .invalidUTF8),  // a UTF-16 surrogate
            ("64f4908080", .invalidUTF8),  // beyond U+10FFFF
            ("a201020103", .duplicateMapKey),
            ("f818", .unsupportedSimpleValue(24)),
        ])
    func refusals(hex: String, reason: CBORDecodingError.Reason) {
        do {
            _ = try CBORDecoder().decode(Data(hex: hex))
            Issue.record("\(hex) decoded")
        } catch {
            #expect(error.reason == reason, "\(hex): \(error)")
        }
    }

    @Test("limits: depth, size and item count; canonical mode refuses long forms and unsorted keys")
    func limits() {
        let deep = Data(repeating: 0x81, count: 40) + Data([0x00])
        #expect(throws: CBORDecodingError.self) { try CBORDecoder().decode(deep) }
        var small = CBORDecoder.Limits()
        small.maxBytes = 8
        #expect(throws: CBORDecodingError.self) { try CBORDecoder(limits: small).decode(Data(count: 9)) }
        var few = CBORDecoder.Limits()
        few.maxItems = 3
        #expect(throws: CBORDecodingError.self) { try CBORDecoder(limits: few).decode(Data(hex: "8401020304")) }
        #expect(throws: CBORDecodingError.self) { try CBORDecoder(requireCanonical: true).decode(Data(hex: "1817")) }
        #expect(throws: CBORDecodingError.self) {
            try CBORDecoder(requireCanonical: true).decode(Data(hex: "a203040102"))
        }
        #expect((try? CBORDecoder(requireCanonical: true).decode(Data(hex: "a201020304"))) != nil)
    }

    @Test("random bytes never crash the decoder")
    func noCrashOnGarbage() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<48, using: &generator)
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            _ = try? CBORDecoder().decode(bytes)
        }
    }

    @Test(
        "map keys that encode alike are duplicates: NaNs with other payloads, a float in two widths (a fuzzing finding)"
    )
    func keysEqualByEncoding() throws {
        // Two NaN keys with different payloads (f97c01, f97c02): both re-encode as f97e00.
        #expect(throws: CBORDecodingError.self) { try CBORDecoder().decode(Data(hex: "a2f97c0101f97c0202")) }
        // 1.5 as a half and as a single float.
        #expect(throws: CBORDecodingError.self) { try CBORDecoder().decode(Data(hex: "a2f93e0001fa3fc0000002")) }
        // What the decoder accepts re-encodes to something the strict decoder accepts, and stays stable.
        let accepted = try CBORDecoder().decode(Data(hex: "a2f97c0101f9000002"))
        let encoded = CBOREncoder.encode(accepted)
        #expect(CBOREncoder.encode(try CBORDecoder(requireCanonical: true).decode(encoded)) == encoded)
    }
}
