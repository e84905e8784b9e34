import Crypto
import Foundation
import HaapiDriver
import Testing

@testable import HaapiServer

/// ``P256TableVerifier`` gives BoringSSL's answer for every key, digest and signature tried: valid ones,
/// tampered ones, out-of-range ones and ones built to land on the point at infinity.
@Suite("P-256 table verifier")
struct P256TableVerifierTests {
    /// A SHA-256-sized digest with chosen bytes, so that BoringSSL can check the digests built here.
    struct RawDigest: Digest {
        static let byteCount = 32
        let bytes: [UInt8]
        func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try bytes.withUnsafeBytes(body)
        }
        func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
        var description: String { "\(bytes)" }
    }

    static func boringSSL(_ key: P256.Signing.PublicKey, _ signature: [UInt8], _ digest: [UInt8]) -> Bool {
        guard let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return key.isValidSignature(parsed, for: RawDigest(bytes: digest))
    }

    static func ours(_ key: P256.Signing.PublicKey) throws -> P256TableVerifier {
        let x963 = key.x963Representation
        return try #require(P256TableVerifier(x: x963.dropFirst().prefix(32), y: x963.suffix(32)))
    }

    @Test("valid signatures pass, and every tampered one gets BoringSSL's answer")
    func agreesWithBoringSSL() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3 {
            let privateKey = P256.Signing.PrivateKey()
            let verifier = try Self.ours(privateKey.publicKey)
            for round in 0..<32 {
                let digest = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let signature = [UInt8](try privateKey.signature(for: RawDigest(bytes: digest)).rawRepresentation)
                #expect(verifier.isValidSignature(signature, digest: digest))
                // One flipped bit of the signature or of the digest.
                var badSignature = signature
                badSignature[round % 64] ^= 1 << UInt8(round % 8)
                var badDigest = digest
                badDigest[round % 32] ^= 1 << UInt8(round % 8)
                for (candidate, hash) in [(badSignature, digest), (signature, badDigest)] {
                    #expect(
                        verifier.isValidSignature(candidate, digest: hash)
                            == Self.boringSSL(privateKey.publicKey, candidate, hash))
                }
                // The other valid form, (r, n − s), and a signature by another key.
                let s = try #require(U256(bigEndian: signature.suffix(32)))
                let highS = Array(signature.prefix(32)) + P256Order.modulus.subtracting(s).difference.bigEndianBytes
                #expect(verifier.isValidSignature(highS, digest: digest))
                #expect(Self.boringSSL(privateKey.publicKey, highS, digest))
                let foreign = [UInt8](
                    try P256.Signing.PrivateKey().signature(for: RawDigest(bytes: digest)).rawRepresentation)
                #expect(!verifier.isValidSignature(foreign, digest: digest))
            }
        }
    }

    @Test("digests of n or more are reduced as BoringSSL reduces them")
    func largeDigests() throws {
        let privateKey = P256.Signing.PrivateKey()
        let verifier = try Self.ours(privateKey.publicKey)
        let n = P256Order.modulus
        let digests = [
            n.bigEndianBytes, [UInt8](repeating: 0xff, count: 32), n.adding(U256(5, 0, 0, 0)).sum.bigEndianBytes,
            [UInt8](repeating: 0, count: 32),
        ]
        for digest in digests {
            let signature = [UInt8](try privateKey.signature(for: RawDigest(bytes: digest)).rawRepresentation)
            #expect(verifier.isValidSignature(signature, digest: digest))
            #expect(Self.boringSSL(privateKey.publicKey, signature, digest))
        }
    }

    @Test("r or s of 0, n or more, and wrong lengths are refused")
    func outOfRange() throws {
        let privateKey = P256.Signing.PrivateKey()
        let verifier = try Self.ours(privateKey.publicKey)
        let digest = [UInt8](SHA256.hash(data: Data("message".utf8)))
        let signature = [UInt8](try privateKey.signature(for: RawDigest(bytes: digest)).rawRepresentation)
        let r = Array(signature.prefix(32))
        let s = Array(signature.suffix(32))
        let n = P256Order.modulus
        let zero = [UInt8](repeating: 0, count: 32)
        let nPlus = { (k: UInt64) in n.adding(U256(k, 0, 0, 0)).sum.bigEndianBytes }
        let rPlusN = try #require(U256(bigEndian: r)).adding(n)
        var candidates = [zero + s, r + zero, n.bigEndianBytes + s, r + n.bigEndianBytes, nPlus(1) + s, r + nPlus(1)]
        candidates += [[UInt8](repeating: 0xff, count: 64), Array(signature.dropLast()), signature + [0], []]
        if !rPlusN.carry { candidates.append(rPlusN.sum.bigEndianBytes + s) }  // r + n names the same x mod n
        for candidate in candidates {
            #expect(!verifier.isValidSignature(candidate, digest: digest))
            #expect(!Self.boringSSL(privateKey.publicKey, candidate, digest))
        }
        #expect(!verifier.isValidSignature(signature, digest: digest.dropLast()))
    }

    @Test("a signature whose u1·G + u2·Q is the point at infinity is refused")
    func infinity() throws {
        var generator = SystemRandomNumberGenerator()
        let n = P256Order.modulus
        for _ in 0..<8 {
            let privateKey = P256.Signing.PrivateKey()
            let d = try #require(U256(bigEndian: [UInt8](privateKey.rawRepresentation)))
            let r = Reference.random(below: n, using: &generator)
            let s = Reference.random(below: n, using: &generator)
            guard !r.isZero, !s.isZero else { continue }
            // e = −r·d makes u1·G + u2·Q = (e + r·d)/s · G = infinity.
            let e = P256Order.negate(Reference.multiply(r, d, modulo: n))
            let signature = r.bigEndianBytes + s.bigEndianBytes
            #expect(!(try Self.ours(privateKey.publicKey)).isValidSignature(signature, digest: e.bigEndianBytes))
            #expect(!Self.boringSSL(privateKey.publicKey, signature, e.bigEndianBytes))
        }
    }
}
