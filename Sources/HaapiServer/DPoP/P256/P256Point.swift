/// A P-256 point in affine coordinates, both in Montgomery form (``P256Field``). Never the point at infinity.
struct P256Affine: Equatable, Sendable {
    var x: U256
    var y: U256

    /// The curve's generator (FIPS 186-5, SEC 2 §2.4.2).
    static let generator = P256Affine(
        x: P256Field.enter(
            U256(0xf4a1_3945_d898_c296, 0x7703_7d81_2deb_33a0, 0xf8bc_e6e5_63a4_40f2, 0x6b17_d1f2_e12c_4247)),
        y: P256Field.enter(
            U256(0xcbb6_4068_37bf_51f5, 0x2bce_3357_6b31_5ece, 0x8ee7_eb4a_7c0f_9e16, 0x4fe3_42e2_fe1a_7f9b)))

    /// The curve's b, in Montgomery form.
    private static let b = U256(
        0xd89c_df62_29c4_bddf, 0xacf0_05cd_7884_3090, 0xe5a2_20ab_f721_2ed6, 0xdc30_061d_0487_4834)

    /// The point with plain coordinates `x` and `y` (big-endian, 32 bytes each), or nil unless both are
    /// below p and the point is on the curve (y² = x³ − 3x + b).
    init?(x xBytes: some Collection<UInt8>, y yBytes: some Collection<UInt8>) {
        let p = P256Field.modulus
        guard let x = U256(bigEndian: xBytes), let y = U256(bigEndian: yBytes), x.isLess(than: p), y.isLess(than: p)
        else { return nil }
        self.init(x: P256Field.enter(x), y: P256Field.enter(y))
        guard isOnCurve else { return nil }
    }

    init(x: U256, y: U256) {
        self.x = x
        self.y = y
    }

    var isOnCurve: Bool {
        typealias F = P256Field
        let xSquared = F.square(x)
        let threeX = F.add(F.add(x, x), x)
        let right = F.add(F.subtract(F.multiply(xSquared, x), threeX), Self.b)
        return F.square(y) == right
    }

    /// The point's negation (x, −y).
    var negated: P256Affine { P256Affine(x: x, y: P256Field.negate(y)) }

    /// Plain big-endian coordinates, 32 bytes each.
    var plainCoordinates: (x: [UInt8], y: [UInt8]) {
        (P256Field.leave(x).bigEndianBytes, P256Field.leave(y).bigEndianBytes)
    }
}

/// A P-256 point in Jacobian coordinates (X/Z², Y/Z³), Montgomery form; Z = 0 is the point at infinity.
/// The formulas are the variable-time ones for public data (a = −3).
struct P256Jacobian: Sendable {
    var x: U256
    var y: U256
    var z: U256

    static let infinity = P256Jacobian(x: P256Field.one, y: P256Field.one, z: .zero)

    init(x: U256, y: U256, z: U256) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(_ point: P256Affine) {
        self.init(x: point.x, y: point.y, z: P256Field.one)
    }

    var isInfinity: Bool { z.isZero }

    /// 2·self ("dbl-2001-b": 3M + 5S). Infinity stays infinity (Z3 = 2·Y·Z).
    func doubled() -> P256Jacobian {
        typealias F = P256Field
        if isInfinity { return self }
        let delta = F.square(z)
        let gamma = F.square(y)
        let beta = F.multiply(x, gamma)
        let product = F.multiply(F.subtract(x, delta), F.add(x, delta))
        let alpha = F.add(F.add(product, product), product)
        let fourBeta = F.add(F.add(beta, beta), F.add(beta, beta))
        let x3 = F.subtract(F.square(alpha), F.add(fourBeta, fourBeta))
        let yPlusZ = F.add(y, z)
        let z3 = F.subtract(F.subtract(F.square(yPlusZ), gamma), delta)
        let gammaSquared = F.square(gamma)
        let twoGammaSquared = F.add(gammaSquared, gammaSquared)
        let fourGammaSquared = F.add(twoGammaSquared, twoGammaSquared)
        let y3 = F.subtract(F.multiply(alpha, F.subtract(fourBeta, x3)), F.add(fourGammaSquared, fourGammaSquared))
        return P256Jacobian(x: x3, y: y3, z: z3)
    }

    /// self + other, for every case: either side at infinity, equal points (doubling), opposite points
    /// (infinity). Mixed addition ("madd", 8M + 3S) otherwise.
    func adding(_ other: P256Affine) -> P256Jacobian {
        typealias F = P256Field
        if isInfinity { return P256Jacobian(other) }
        let zz = F.square(z)
        let u2 = F.multiply(other.x, zz)
        let s2 = F.multiply(other.y, F.multiply(z, zz))
        let h = F.subtract(u2, x)
        let r = F.subtract(s2, y)
        if h.isZero {
            return r.isZero ? doubled() : .infinity
        }
        let hh = F.square(h)
        let hhh = F.multiply(h, hh)
        let v = F.multiply(x, hh)
        let x3 = F.subtract(F.subtract(F.square(r), hhh), F.add(v, v))
        let y3 = F.subtract(F.multiply(r, F.subtract(v, x3)), F.multiply(y, hhh))
        let z3 = F.multiply(z, h)
        return P256Jacobian(x: x3, y: y3, z: z3)
    }

    /// Affine forms of `points` (none at infinity) with one field inversion for all (Montgomery's trick);
    /// nil if any is at infinity.
    static func normalize(_ points: [P256Jacobian]) -> [P256Affine]? {
        typealias F = P256Field
        guard !points.isEmpty else { return [] }
        guard !points.contains(where: \.isInfinity) else { return nil }
        var prefixes: [U256] = []
        prefixes.reserveCapacity(points.count)
        var running = F.one
        for point in points {
            running = F.multiply(running, point.z)
            prefixes.append(running)
        }
        // The binary inverse of the plain value: a tenth of the work of Fermat's (`F.inverse`).
        guard var inverse = F.publicInverse(F.leave(running)).map(F.enter) else { return nil }
        var result = [P256Affine](repeating: P256Affine(x: .zero, y: .zero), count: points.count)
        for index in points.indices.reversed() {
            let zInverse = index == 0 ? inverse : F.multiply(inverse, prefixes[index - 1])
            inverse = F.multiply(inverse, points[index].z)
            let zInverseSquared = F.square(zInverse)
            result[index] = P256Affine(
                x: F.multiply(points[index].x, zInverseSquared),
                y: F.multiply(points[index].y, F.multiply(zInverseSquared, zInverse)))
        }
        return result
    }
}
