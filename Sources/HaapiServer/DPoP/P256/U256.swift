/// A 256-bit unsigned integer as four 64-bit limbs, least significant first: the representation the
/// P-256 arithmetic in this folder works on. Only what that arithmetic needs; every operation is on
/// public values (signature verification), so none of it tries to run in constant time.
struct U256: Equatable, Sendable {
    var l0: UInt64
    var l1: UInt64
    var l2: UInt64
    var l3: UInt64

    init(_ l0: UInt64, _ l1: UInt64, _ l2: UInt64, _ l3: UInt64) {
        (self.l0, self.l1, self.l2, self.l3) = (l0, l1, l2, l3)
    }

    static let zero = U256(0, 0, 0, 0)

    /// Reads exactly 32 big-endian bytes; nil for any other length.
    init?(bigEndian bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var limbs: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for (index, byte) in bytes.enumerated() {
            switch index / 8 {
            case 0: limbs.3 = limbs.3 << 8 | UInt64(byte)
            case 1: limbs.2 = limbs.2 << 8 | UInt64(byte)
            case 2: limbs.1 = limbs.1 << 8 | UInt64(byte)
            default: limbs.0 = limbs.0 << 8 | UInt64(byte)
            }
        }
        self.init(limbs.0, limbs.1, limbs.2, limbs.3)
    }

    /// Reads exactly 32 big-endian bytes; nil for any other length.
    init?(bigEndian buffer: UnsafeRawBufferPointer) {
        guard buffer.count == 32 else { return nil }
        self.init(
            UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 24, as: UInt64.self)),
            UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 16, as: UInt64.self)),
            UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 8, as: UInt64.self)),
            UInt64(bigEndian: buffer.loadUnaligned(fromByteOffset: 0, as: UInt64.self)))
    }

    /// The 32 big-endian bytes.
    var bigEndianBytes: [UInt8] {
        [l3, l2, l1, l0].flatMap { limb in (0..<8).reversed().map { UInt8(truncatingIfNeeded: limb >> ($0 * 8)) } }
    }

    @inline(__always)
    var isZero: Bool { (l0 | l1 | l2 | l3) == 0 }

    /// The `count` bits (at most 32) starting at bit `offset` (bit 0 is the least significant); 0 past the top.
    @inline(__always)
    func bits(at offset: Int, count: Int) -> Int {
        guard offset < 256 else { return 0 }
        let limbIndex = offset >> 6
        let shift = UInt64(offset & 63)
        var value = limb(limbIndex) >> shift
        if shift + UInt64(count) > 64, limbIndex < 3 { value |= limb(limbIndex + 1) << (64 - shift) }
        return Int(truncatingIfNeeded: value & ((1 << UInt64(count)) - 1))
    }

    @inline(__always)
    private func limb(_ index: Int) -> UInt64 {
        switch index {
        case 0: l0
        case 1: l1
        case 2: l2
        default: l3
        }
    }

    /// Whether `self < other`.
    @inline(__always)
    func isLess(than other: U256) -> Bool {
        if l3 != other.l3 { return l3 < other.l3 }
        if l2 != other.l2 { return l2 < other.l2 }
        if l1 != other.l1 { return l1 < other.l1 }
        return l0 < other.l0
    }

    var isEven: Bool { l0 & 1 == 0 }

    /// `self / 2`, with `topBit` shifted in as bit 255 (the carry of an addition that overflowed).
    @inline(__always)
    func halved(topBit: Bool = false) -> U256 {
        U256(
            l0 >> 1 | l1 << 63, l1 >> 1 | l2 << 63, l2 >> 1 | l3 << 63,
            l3 >> 1 | (topBit ? 1 << 63 : 0))
    }

    /// `self + other` modulo 2²⁵⁶, and whether it carried out.
    @inline(__always)
    func adding(_ other: U256) -> (sum: U256, carry: Bool) {
        var carry: UInt64 = 0
        let r0 = addWithCarry(l0, other.l0, &carry)
        let r1 = addWithCarry(l1, other.l1, &carry)
        let r2 = addWithCarry(l2, other.l2, &carry)
        let r3 = addWithCarry(l3, other.l3, &carry)
        return (U256(r0, r1, r2, r3), carry != 0)
    }

    /// `self - other` modulo 2²⁵⁶, and whether it borrowed (`self < other`).
    @inline(__always)
    func subtracting(_ other: U256) -> (difference: U256, borrow: Bool) {
        var borrow: UInt64 = 0
        let r0 = subtractWithBorrow(l0, other.l0, &borrow)
        let r1 = subtractWithBorrow(l1, other.l1, &borrow)
        let r2 = subtractWithBorrow(l2, other.l2, &borrow)
        let r3 = subtractWithBorrow(l3, other.l3, &borrow)
        return (U256(r0, r1, r2, r3), borrow != 0)
    }
}

// The limb helpers, in two forms. Written with `UInt128`, LLVM turns them into add-with-carry chains and
// one widening multiply each: a signature check takes 0.58 of BoringSSL's time (`haapi-bench verify`),
// against 1.01 for the portable form (`addingReportingOverflow`, `multipliedFullWidth`), which Apple's
// systems before macOS 15 and iOS 18 (no `UInt128`) use. The tests hold the two forms to each other.

/// `a + b + carry`, with `carry` (0 or 1) replaced by the carry out.
@inline(__always)
func addWithCarry(_ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    #if os(Linux)
    let wide = UInt128(a) &+ UInt128(b) &+ UInt128(carry)
    carry = UInt64(truncatingIfNeeded: wide >> 64)
    return UInt64(truncatingIfNeeded: wide)
    #else
    portableAddWithCarry(a, b, &carry)
    #endif
}

/// `a - b - borrow`, with `borrow` (0 or 1) replaced by the borrow out.
@inline(__always)
func subtractWithBorrow(_ a: UInt64, _ b: UInt64, _ borrow: inout UInt64) -> UInt64 {
    #if os(Linux)
    let wide = UInt128(a) &- UInt128(b) &- UInt128(borrow)
    borrow = UInt64(truncatingIfNeeded: wide >> 64) & 1
    return UInt64(truncatingIfNeeded: wide)
    #else
    portableSubtractWithBorrow(a, b, &borrow)
    #endif
}

/// `t + a * b + carry` as the low limb, with `carry` replaced by the high limb (it cannot overflow:
/// (2⁶⁴−1) + (2⁶⁴−1)² + (2⁶⁴−1) = 2¹²⁸−1).
@inline(__always)
func multiplyAccumulate(_ t: UInt64, _ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    #if os(Linux)
    let wide = UInt128(a) &* UInt128(b) &+ UInt128(t) &+ UInt128(carry)
    carry = UInt64(truncatingIfNeeded: wide >> 64)
    return UInt64(truncatingIfNeeded: wide)
    #else
    portableMultiplyAccumulate(t, a, b, &carry)
    #endif
}

@inline(__always)
func portableAddWithCarry(_ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    let (first, overflowA) = a.addingReportingOverflow(b)
    let (second, overflowB) = first.addingReportingOverflow(carry)
    carry = (overflowA ? 1 : 0) | (overflowB ? 1 : 0)
    return second
}

@inline(__always)
func portableSubtractWithBorrow(_ a: UInt64, _ b: UInt64, _ borrow: inout UInt64) -> UInt64 {
    let (first, underflowA) = a.subtractingReportingOverflow(b)
    let (second, underflowB) = first.subtractingReportingOverflow(borrow)
    borrow = (underflowA ? 1 : 0) | (underflowB ? 1 : 0)
    return second
}

@inline(__always)
func portableMultiplyAccumulate(_ t: UInt64, _ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    let (high, low) = a.multipliedFullWidth(by: b)
    let (first, overflowA) = low.addingReportingOverflow(t)
    let (second, overflowB) = first.addingReportingOverflow(carry)
    carry = high &+ (overflowA ? 1 : 0) &+ (overflowB ? 1 : 0)
    return second
}
