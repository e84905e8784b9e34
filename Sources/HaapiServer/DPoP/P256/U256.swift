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

    /// The 32 big-endian bytes.
    var bigEndianBytes: [UInt8] {
        [l3, l2, l1, l0].flatMap { limb in (0..<8).reversed().map { UInt8(truncatingIfNeeded: limb >> ($0 * 8)) } }
    }

    var isZero: Bool { (l0 | l1 | l2 | l3) == 0 }

    /// The four bits at `4 * index` (index 0 is the least significant nibble); 0 past the top.
    func nibble(_ index: Int) -> Int {
        let limb: UInt64
        switch index >> 4 {
        case 0: limb = l0
        case 1: limb = l1
        case 2: limb = l2
        case 3: limb = l3
        default: return 0
        }
        return Int(truncatingIfNeeded: (limb >> UInt64((index & 15) * 4)) & 0xF)
    }

    /// Whether `self < other`.
    func isLess(than other: U256) -> Bool {
        if l3 != other.l3 { return l3 < other.l3 }
        if l2 != other.l2 { return l2 < other.l2 }
        if l1 != other.l1 { return l1 < other.l1 }
        return l0 < other.l0
    }

    /// `self + other` modulo 2²⁵⁶, and whether it carried out.
    func adding(_ other: U256) -> (sum: U256, carry: Bool) {
        var carry: UInt64 = 0
        let r0 = addWithCarry(l0, other.l0, &carry)
        let r1 = addWithCarry(l1, other.l1, &carry)
        let r2 = addWithCarry(l2, other.l2, &carry)
        let r3 = addWithCarry(l3, other.l3, &carry)
        return (U256(r0, r1, r2, r3), carry != 0)
    }

    /// `self - other` modulo 2²⁵⁶, and whether it borrowed (`self < other`).
    func subtracting(_ other: U256) -> (difference: U256, borrow: Bool) {
        var borrow: UInt64 = 0
        let r0 = subtractWithBorrow(l0, other.l0, &borrow)
        let r1 = subtractWithBorrow(l1, other.l1, &borrow)
        let r2 = subtractWithBorrow(l2, other.l2, &borrow)
        let r3 = subtractWithBorrow(l3, other.l3, &borrow)
        return (U256(r0, r1, r2, r3), borrow != 0)
    }
}

/// `a + b + carry`, with `carry` (0 or 1) replaced by the carry out.
@inline(__always)
func addWithCarry(_ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    let (first, overflowA) = a.addingReportingOverflow(b)
    let (second, overflowB) = first.addingReportingOverflow(carry)
    carry = (overflowA ? 1 : 0) | (overflowB ? 1 : 0)
    return second
}

/// `a - b - borrow`, with `borrow` (0 or 1) replaced by the borrow out.
@inline(__always)
func subtractWithBorrow(_ a: UInt64, _ b: UInt64, _ borrow: inout UInt64) -> UInt64 {
    let (first, underflowA) = a.subtractingReportingOverflow(b)
    let (second, underflowB) = first.subtractingReportingOverflow(borrow)
    borrow = (underflowA ? 1 : 0) | (underflowB ? 1 : 0)
    return second
}

/// `t + a * b + carry` as the low limb, with `carry` replaced by the high limb (it cannot overflow:
/// (2⁶⁴−1) + (2⁶⁴−1)² + (2⁶⁴−1) = 2¹²⁸−1).
@inline(__always)
func multiplyAccumulate(_ t: UInt64, _ a: UInt64, _ b: UInt64, _ carry: inout UInt64) -> UInt64 {
    let (high, low) = a.multipliedFullWidth(by: b)
    let (first, overflowA) = low.addingReportingOverflow(t)
    let (second, overflowB) = first.addingReportingOverflow(carry)
    carry = high &+ (overflowA ? 1 : 0) &+ (overflowB ? 1 : 0)
    return second
}
