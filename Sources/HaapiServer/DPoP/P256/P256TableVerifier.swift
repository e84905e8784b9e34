import Crypto
import Foundation

/// ECDSA P-256 verification (FIPS 186-5 §6.4.2) for one public key, with that key's ``P256CombTable``
/// and the generator's: about a quarter of the field multiplications of a windowed check that builds its
/// table on every call, as BoringSSL's does. Every input is public, so nothing here runs in constant time.
///
/// It answers exactly as BoringSSL does for the same key, digest and signature; the tests hold it to that
/// over random, tampered and constructed signatures, and a fuzz harness does the same with its inputs.
struct P256TableVerifier: Sendable {
    private let table: P256CombTable
    private let generator: P256CombTable

    /// The verifier for the key with plain coordinates `x` and `y` (32 big-endian bytes each); nil if the
    /// point is not on the curve.
    init?(x: some Collection<UInt8>, y: some Collection<UInt8>) {
        guard let point = P256Affine(x: x, y: y), let table = P256CombTable(point), let generator = P256CombTable.generator
        else { return nil }
        self.table = table
        self.generator = generator
    }

    /// Whether `signature` (r‖s, 32 big-endian bytes each, as JWS carries it) signs `digest` (the 32-byte SHA-256).
    func isValidSignature(_ signature: some Collection<UInt8>, digest: some Collection<UInt8>) -> Bool {
        typealias N = P256Order
        typealias F = P256Field
        guard signature.count == 64, let r = U256(bigEndian: signature.prefix(32)),
            let s = U256(bigEndian: signature.dropFirst(32)), var e = U256(bigEndian: digest)
        else { return false }
        let n = N.modulus
        guard !r.isZero, !s.isZero, r.isLess(than: n), s.isLess(than: n) else { return false }
        // The digest is as wide as n, so its leftmost 256 bits are all of it, and one subtraction reduces it.
        if !e.isLess(than: n) { e = e.subtracting(n).difference }
        let sInverse = N.inverse(N.enter(s))
        // Plain times Montgomery form leaves plain values: u1 = e/s, u2 = r/s (mod n).
        let u1 = N.multiply(e, sInverse)
        let u2 = N.multiply(r, sInverse)
        let point = table.multiply(u2, plus: u1, times: generator)
        guard !point.isInfinity else { return false }
        // x(R) mod n == r: x(R) = X/Z² is below p, so it is r or, when r + n < p, r + n.
        let zz = F.square(point.z)
        if F.multiply(F.enter(r), zz) == point.x { return true }
        let (rPlusN, carry) = r.adding(n)
        guard !carry, rPlusN.isLess(than: F.modulus) else { return false }
        return F.multiply(F.enter(rPlusN), zz) == point.x
    }
}
