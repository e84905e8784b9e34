/// Arithmetic modulo an odd 256-bit number above 2²⁵⁵ in Montgomery form (a value `x` is held as
/// `x·2²⁵⁶ mod m`), with the constants as literals so that the compiler folds them into the code. The
/// two moduli P-256 needs are the field prime (``P256Field``) and the group order (``P256Order``).
///
/// Every result is fully reduced (below `modulus`), so two values are equal exactly when their
/// representations are.
protocol MontgomeryModulus {
    static var modulus: U256 { get }
    /// −modulus⁻¹ mod 2⁶⁴.
    static var negatedInverse: UInt64 { get }
    /// 2⁵¹² mod modulus: multiplying by it enters Montgomery form.
    static var rSquared: U256 { get }
    /// 2²⁵⁶ mod modulus: one in Montgomery form.
    static var one: U256 { get }
    /// One round of the product, for one limb of its second factor: `t = (t + a·limb + f·modulus) / 2⁶⁴`,
    /// `f` chosen so that the division is exact. `t` stays below 2·modulus, so its fifth limb is 0 or 1. The
    /// CIOS round below unless the modulus has a shape that allows a faster reduction.
    static func round(_ t: inout MontgomeryAccumulator, _ a: U256, _ limb: UInt64)
    /// `a · a · 2⁻²⁵⁶ mod modulus`; `multiply(a, a)` unless there is a faster way.
    static func square(_ a: U256) -> U256
}

/// The running value of a Montgomery product: four limbs and a fifth that is 0 or 1.
typealias MontgomeryAccumulator = (UInt64, UInt64, UInt64, UInt64, UInt64)

extension MontgomeryModulus {
    /// `a · b · 2⁻²⁵⁶ mod modulus` for `a, b < modulus`: one multiply-then-reduce round per limb of `b`.
    static func multiply(_ a: U256, _ b: U256) -> U256 {
        var t: MontgomeryAccumulator = (0, 0, 0, 0, 0)
        round(&t, a, b.l0)
        round(&t, a, b.l1)
        round(&t, a, b.l2)
        round(&t, a, b.l3)
        return reduceOnce(U256(t.0, t.1, t.2, t.3), overflow: t.4 != 0)
    }

    static func square(_ a: U256) -> U256 { multiply(a, a) }

    /// The CIOS round, for any odd modulus.
    @inline(__always)
    static func round(_ t: inout MontgomeryAccumulator, _ a: U256, _ limb: UInt64) {
        let m = modulus
        let (s0, s1, s2, s3, s4, top) = addingProduct(t, a, limb)
        // s0 + factor·m0 ≡ 0 mod 2⁶⁴: the lowest limb drops out, which is the division by 2⁶⁴.
        let factor = s0 &* negatedInverse
        var carry: UInt64 = 0
        _ = multiplyAccumulate(s0, factor, m.l0, &carry)
        t.0 = multiplyAccumulate(s1, factor, m.l1, &carry)
        t.1 = multiplyAccumulate(s2, factor, m.l2, &carry)
        t.2 = multiplyAccumulate(s3, factor, m.l3, &carry)
        var carryOut: UInt64 = 0
        t.3 = addWithCarry(s4, carry, &carryOut)
        t.4 = top &+ carryOut
    }

    /// `t + a·limb`, the first half of a round: six limbs, the last 0 or 1.
    @inline(__always)
    static func addingProduct(
        _ t: MontgomeryAccumulator, _ a: U256, _ limb: UInt64
    ) -> (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) {
        var carry: UInt64 = 0
        let s0 = multiplyAccumulate(t.0, a.l0, limb, &carry)
        let s1 = multiplyAccumulate(t.1, a.l1, limb, &carry)
        let s2 = multiplyAccumulate(t.2, a.l2, limb, &carry)
        let s3 = multiplyAccumulate(t.3, a.l3, limb, &carry)
        var top: UInt64 = 0
        let s4 = addWithCarry(t.4, carry, &top)
        return (s0, s1, s2, s3, s4, top)
    }

    /// `a + b mod modulus` for `a, b < modulus`.
    @inline(__always)
    static func add(_ a: U256, _ b: U256) -> U256 {
        let (sum, carry) = a.adding(b)
        return reduceOnce(sum, overflow: carry)
    }

    /// `a − b mod modulus` for `a, b < modulus`.
    @inline(__always)
    static func subtract(_ a: U256, _ b: U256) -> U256 {
        let (difference, borrow) = a.subtracting(b)
        return borrow ? difference.adding(modulus).sum : difference
    }

    /// `−a mod modulus` for `a < modulus`.
    static func negate(_ a: U256) -> U256 { a.isZero ? a : modulus.subtracting(a).difference }

    /// `value` (any 256-bit number below `modulus`) in Montgomery form.
    static func enter(_ value: U256) -> U256 { multiply(value, rSquared) }

    /// The plain value of `value` held in Montgomery form.
    static func leave(_ value: U256) -> U256 { multiply(value, U256(1, 0, 0, 0)) }

    /// `a⁻¹ mod modulus` of a plain (not Montgomery) `a` in 1…modulus−1, by the binary extended Euclidean
    /// algorithm: shifts and subtractions only (about a tenth of the work of Fermat's a^(m−2), which was a
    /// quarter of a signature check), in a time that depends on `a`: fine for public values, such as a
    /// signature's s. The modulus must be prime. nil for 0 or `a ≥ modulus`.
    static func publicInverse(_ a: U256) -> U256? {
        let m = modulus
        guard !a.isZero, a.isLess(than: m) else { return nil }
        // Invariants: u ≡ x1·a and v ≡ x2·a (mod m); gcd(u, v) = gcd(a, m) = 1.
        var u = a
        var v = m
        let unit = U256(1, 0, 0, 0)
        var x1 = unit
        var x2 = U256.zero
        while u != unit && v != unit {
            if u.isZero || v.isZero { return nil }  // gcd(a, m) > 1: only for a modulus that is not prime
            while u.isEven {
                u = u.halved()
                x1 = halvedModulo(x1)
            }
            while v.isEven {
                v = v.halved()
                x2 = halvedModulo(x2)
            }
            if v.isLess(than: u) {
                u = u.subtracting(v).difference
                x1 = subtract(x1, x2)
            } else {
                v = v.subtracting(u).difference
                x2 = subtract(x2, x1)
            }
        }
        return u == unit ? x1 : x2
    }

    /// `x / 2 mod modulus` for `x < modulus` (odd modulus: an odd x becomes (x + modulus) / 2).
    @inline(__always)
    private static func halvedModulo(_ x: U256) -> U256 {
        if x.isEven { return x.halved() }
        let (sum, carry) = x.adding(modulus)
        return sum.halved(topBit: carry)
    }

    /// `value` reduced once: less `modulus` when it is at least `modulus` (or carried past 2²⁵⁶).
    @inline(__always)
    static func reduceOnce(_ value: U256, overflow: Bool) -> U256 {
        let (reduced, borrow) = value.subtracting(modulus)
        return overflow || !borrow ? reduced : value
    }
}

/// The P-256 field prime p = 2²⁵⁶ − 2²²⁴ + 2¹⁹² + 2⁹⁶ − 1 (FIPS 186-5 / SEC 2).
enum P256Field: MontgomeryModulus {
    static var modulus: U256 { U256(0xffff_ffff_ffff_ffff, 0x0000_0000_ffff_ffff, 0, 0xffff_ffff_0000_0001) }
    static var negatedInverse: UInt64 { 1 }
    static var rSquared: U256 {
        U256(0x0000_0000_0000_0003, 0xffff_fffb_ffff_ffff, 0xffff_ffff_ffff_fffe, 0x0000_0004_ffff_fffd)
    }
    static var one: U256 {
        U256(0x0000_0000_0000_0001, 0xffff_ffff_0000_0000, 0xffff_ffff_ffff_ffff, 0x0000_0000_ffff_fffe)
    }

    /// `multiply(a, a)` with each cross product computed once (10 multiplications for the 512-bit square
    /// instead of 16), then four reduction rounds on its low half, added to its high half.
    static func square(_ a: U256) -> U256 {
        // Cross products a_i·a_j (i < j) at limbs 1…6.
        var carry: UInt64 = 0
        var t1 = multiplyAccumulate(0, a.l0, a.l1, &carry)
        var t2 = multiplyAccumulate(0, a.l0, a.l2, &carry)
        var t3 = multiplyAccumulate(0, a.l0, a.l3, &carry)
        var t4 = carry
        carry = 0
        t3 = multiplyAccumulate(t3, a.l1, a.l2, &carry)
        t4 = multiplyAccumulate(t4, a.l1, a.l3, &carry)
        var t5 = carry
        carry = 0
        t5 = multiplyAccumulate(t5, a.l2, a.l3, &carry)
        var t6 = carry
        // Doubled.
        var t7 = t6 >> 63
        t6 = t6 << 1 | t5 >> 63
        t5 = t5 << 1 | t4 >> 63
        t4 = t4 << 1 | t3 >> 63
        t3 = t3 << 1 | t2 >> 63
        t2 = t2 << 1 | t1 >> 63
        t1 <<= 1
        // Plus the squares a_i² on the diagonal.
        let (h0, t0) = a.l0.multipliedFullWidth(by: a.l0)
        let (h1, l1) = a.l1.multipliedFullWidth(by: a.l1)
        let (h2, l2) = a.l2.multipliedFullWidth(by: a.l2)
        let (h3, l3) = a.l3.multipliedFullWidth(by: a.l3)
        carry = 0
        t1 = addWithCarry(t1, h0, &carry)
        t2 = addWithCarry(t2, l1, &carry)
        t3 = addWithCarry(t3, h1, &carry)
        t4 = addWithCarry(t4, l2, &carry)
        t5 = addWithCarry(t5, h2, &carry)
        t6 = addWithCarry(t6, l3, &carry)
        t7 = t7 &+ h3 &+ carry  // a² < 2⁵¹², so this does not overflow
        // (low + f·p) / 2²⁵⁶ ≤ p, reduced round by round as in `multiply`, then added to the high half (< p).
        var low: MontgomeryAccumulator = (t0, t1, t2, t3, 0)
        for _ in 0..<4 { round(&low, .zero, 0) }
        let (sum, overflow) = U256(t4, t5, t6, t7).adding(U256(low.0, low.1, low.2, low.3))
        return reduceOnce(sum, overflow: overflow || low.4 != 0)
    }

    /// The CIOS round with p's shape put to use: −p⁻¹ ≡ 1 (mod 2⁶⁴), so a round's factor is its lowest
    /// limb `f`, and (t + f·p)/2⁶⁴ = t/2⁶⁴ + f·(p + 1)/2⁶⁴ with (p + 1)/2⁶⁴ = 2³² + 0xffffffff00000001·2¹²⁸:
    /// one multiplication per round instead of three.
    @inline(__always)
    static func round(_ t: inout MontgomeryAccumulator, _ a: U256, _ limb: UInt64) {
        let (s0, s1, s2, s3, s4, top) = addingProduct(t, a, limb)
        let (high, low) = s0.multipliedFullWidth(by: 0xffff_ffff_0000_0001)
        var carry: UInt64 = 0
        t.0 = addWithCarry(s1, s0 << 32, &carry)
        t.1 = addWithCarry(s2, s0 >> 32, &carry)
        t.2 = addWithCarry(s3, low, &carry)
        t.3 = addWithCarry(s4, high, &carry)
        t.4 = top &+ carry
    }
}

/// The order n of the P-256 group.
enum P256Order: MontgomeryModulus {
    static var modulus: U256 {
        U256(0xf3b9_cac2_fc63_2551, 0xbce6_faad_a717_9e84, 0xffff_ffff_ffff_ffff, 0xffff_ffff_0000_0000)
    }
    static var negatedInverse: UInt64 { 0xccd1_c8aa_ee00_bc4f }
    static var rSquared: U256 {
        U256(0x8324_4c95_be79_eea2, 0x4699_799c_49bd_6fa6, 0x2845_b239_2b6b_ec59, 0x66e1_2d94_f3d9_5620)
    }
    static var one: U256 {
        U256(0x0c46_353d_039c_daaf, 0x4319_0552_58e8_617b, 0, 0x0000_0000_ffff_ffff)
    }
}
