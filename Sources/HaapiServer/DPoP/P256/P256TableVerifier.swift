import Crypto
import Foundation

/// ECDSA P-256 verification (FIPS 186-5 §6.4.2) for one public key, with that key's ``P256CombTable``
/// and the generator's: about a third of the field multiplications of a windowed check that builds its
/// table on every call, as BoringSSL's does, and no doubling. Every input is public, so nothing here runs in
/// constant time.
///
/// It answers exactly as BoringSSL does for the same key, digest and signature; the tests hold it to that
/// over random, tampered and constructed signatures, and a fuzz harness does the same with its inputs.
package struct P256TableVerifier: Sendable {
    private let table: P256CombTable
    private let generator: P256CombTable

    /// The verifier for the key with plain coordinates `x` and `y` (32 big-endian bytes each); nil if the
    /// point is not on the curve.
    package init?(x: some Collection<UInt8>, y: some Collection<UInt8>) {
        guard let point = P256Affine(x: x, y: y), let table = P256CombTable(point),
            let generator = P256CombTable.generator
        else { return nil }
        self.table = table
        self.generator = generator
    }

    /// Whether `signature` (r‖s, 32 big-endian bytes each, as JWS carries it) signs `digest`.
    package func isValidSignature(_ signature: Data, for digest: SHA256.Digest) -> Bool {
        guard signature.count == 64 else { return false }
        return signature.withUnsafeBytes { signature in
            digest.withUnsafeBytes { digest in
                guard let r = U256(bigEndian: UnsafeRawBufferPointer(rebasing: signature[0..<32])),
                    let s = U256(bigEndian: UnsafeRawBufferPointer(rebasing: signature[32..<64])),
                    let e = U256(bigEndian: digest)
                else { return false }
                return isValid(r: r, s: s, digest: e)
            }
        }
    }

    /// The same for any byte collections (the digest being the 32-byte SHA-256).
    func isValidSignature(_ signature: some Collection<UInt8>, digest: some Collection<UInt8>) -> Bool {
        guard signature.count == 64, let r = U256(bigEndian: signature.prefix(32)),
            let s = U256(bigEndian: signature.dropFirst(32)), let e = U256(bigEndian: digest)
        else { return false }
        return isValid(r: r, s: s, digest: e)
    }

    /// FIPS 186-5 §6.4.2, steps 2 to 8, `digest` being the hash as a number.
    private func isValid(r: U256, s: U256, digest: U256) -> Bool {
        typealias N = P256Order
        typealias F = P256Field
        let n = N.modulus
        guard !r.isZero, !s.isZero, r.isLess(than: n), s.isLess(than: n) else { return false }
        // The digest is as wide as n, so its leftmost 256 bits are all of it, and one subtraction reduces it.
        let e = digest.isLess(than: n) ? digest : digest.subtracting(n).difference
        guard let sInverse = N.publicInverse(s) else { return false }
        // A plain value times one in Montgomery form is plain: u1 = e/s, u2 = r/s (mod n).
        let w = N.enter(sInverse)
        let u1 = N.multiply(e, w)
        let u2 = N.multiply(r, w)
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
