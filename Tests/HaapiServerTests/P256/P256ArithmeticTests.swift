import Crypto
import Foundation
import Testing

@testable import HaapiServer

/// The modular and point arithmetic under ``P256TableVerifier``, held to a slow reference and to BoringSSL.
@Suite("P-256 arithmetic")
struct P256ArithmeticTests {
    @Test("the Montgomery constants are what their definitions give")
    func constants() {
        check(P256Field.self)
        check(P256Order.self)
        func check<M: MontgomeryModulus>(_: M.Type) {
            #expect(M.modulus.l0 &* M.negatedInverse == UInt64.max)  // m·(−m⁻¹) ≡ −1 (mod 2⁶⁴)
            #expect(M.one == U256.zero.subtracting(M.modulus).difference)  // 2²⁵⁶ − m < m, so it is 2²⁵⁶ mod m
            var doubled = M.one
            for _ in 0..<256 { doubled = M.add(doubled, doubled) }
            #expect(doubled == M.rSquared)
        }
    }

    @Test("products, sums and inverses match a schoolbook reference for both moduli")
    func arithmeticMatchesReference() {
        var generator = SystemRandomNumberGenerator()
        check(P256Field.self)
        check(P256Order.self)
        func check<M: MontgomeryModulus>(_: M.Type) {
            let m = M.modulus
            let edges = [
                U256.zero, U256(1, 0, 0, 0), U256(2, 0, 0, 0), m.subtracting(U256(1, 0, 0, 0)).difference,
                m.subtracting(U256(2, 0, 0, 0)).difference, U256(0, 0, 0, 1 << 63),
            ]
            let values = edges + (0..<60).map { _ in Reference.random(below: m, using: &generator) }
            for a in values {
                for b in values.prefix(12) + [values.randomElement(using: &generator) ?? a] {
                    let product = M.leave(M.multiply(M.enter(a), M.enter(b)))
                    #expect(product == Reference.multiply(a, b, modulo: m))
                    #expect(M.add(a, b) == Reference.add(a, b, modulo: m))
                    #expect(M.add(M.subtract(a, b), b) == a)
                }
                if !a.isZero {
                    let inverse = M.publicInverse(a)
                    #expect(inverse.map { Reference.multiply($0, a, modulo: m) } == U256(1, 0, 0, 0))
                }
                #expect(M.add(a, M.negate(a)) == .zero)
                #expect(M.leave(M.square(M.enter(a))) == Reference.multiply(a, a, modulo: m))
            }
            #expect(M.publicInverse(.zero) == nil)
            #expect(M.publicInverse(m) == nil)
        }
    }

    @Test("the limb helpers' two forms agree (the portable one is what Apple's systems before macOS 15 run)")
    func limbHelpers() {
        var generator = SystemRandomNumberGenerator()
        let edges: [UInt64] = [0, 1, 2, .max, .max - 1, 1 << 63, (1 << 63) - 1]
        let values = edges + (0..<40).map { _ in generator.next() }
        for a in values {
            for b in values {
                for bit: UInt64 in [0, 1] {
                    var (carry, portableCarry) = (bit, bit)
                    #expect(addWithCarry(a, b, &carry) == portableAddWithCarry(a, b, &portableCarry))
                    #expect(carry == portableCarry)
                    (carry, portableCarry) = (bit, bit)
                    #expect(subtractWithBorrow(a, b, &carry) == portableSubtractWithBorrow(a, b, &portableCarry))
                    #expect(carry == portableCarry)
                }
                for t in [0, .max, b] {
                    var (carry, portableCarry) = (a, a)
                    #expect(multiplyAccumulate(t, a, b, &carry) == portableMultiplyAccumulate(t, a, b, &portableCarry))
                    #expect(carry == portableCarry)
                }
            }
        }
    }

    @Test("tables of every window width from 2 to 7 bits give BoringSSL's multiples")
    func everyWindow() throws {
        let n = P256Order.modulus
        let scalars =
            [U256(1, 0, 0, 0), n.subtracting(U256(1, 0, 0, 0)).difference, U256(0, 0, 0, 1 << 63)]
            + (0..<3).map { _ in U256(bigEndian: [UInt8](P256.Signing.PrivateKey().rawRepresentation)) ?? .zero }
        for window in 2...7 {
            let table = try #require(P256CombTable(.generator, window: window))
            for k in scalars {
                let expected = try P256.Signing.PrivateKey(rawRepresentation: k.bigEndianBytes).publicKey
                #expect(try Self.x963(table.multiply(k)) == expected.x963Representation, "window \(window)")
            }
            #expect(table.multiply(n).isInfinity)
        }
        #expect(P256CombTable(.generator, window: 1) == nil)
        #expect(P256CombTable(.generator, window: 8) == nil)
    }

    @Test("k·G from the generator's table is BoringSSL's public key for the private key k")
    func generatorMultiplesMatchBoringSSL() throws {
        let n = P256Order.modulus
        var scalars = [
            U256(1, 0, 0, 0), U256(2, 0, 0, 0), U256(3, 0, 0, 0), U256(8, 0, 0, 0), U256(9, 0, 0, 0),
            U256(16, 0, 0, 0), U256(0x8888_8888_8888_8888, 0x8888_8888_8888_8888, 0x8888_8888_8888_8888, 0x8888_8888),
            U256(0x9999_9999_9999_9999, 0x9999_9999_9999_9999, 0x9999_9999_9999_9999, 0x9999_9999_9999_9999),
            U256(0, 0, 1, 0), U256(0, 0, 0, 1 << 60), n.subtracting(U256(1, 0, 0, 0)).difference,
            n.subtracting(U256(2, 0, 0, 0)).difference, n.subtracting(U256(9, 0, 0, 0)).difference,
        ]
        scalars += (0..<40).map { _ in U256(bigEndian: [UInt8](P256.Signing.PrivateKey().rawRepresentation)) ?? .zero }
        let table = try #require(P256CombTable.generator)
        for k in scalars {
            let expected = try P256.Signing.PrivateKey(rawRepresentation: k.bigEndianBytes).publicKey.x963Representation
            #expect(try Self.x963(table.multiply(k)) == expected, "k = \(k.bigEndianBytes)")
        }
    }

    @Test("k·Q from a key's table is (k·d)·G for the key's private d")
    func keyMultiplesMatchBoringSSL() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            let privateKey = P256.Signing.PrivateKey()
            let d = try #require(U256(bigEndian: [UInt8](privateKey.rawRepresentation)))
            let q = privateKey.publicKey.x963Representation
            let point = try #require(P256Affine(x: q.dropFirst().prefix(32), y: q.suffix(32)))
            let table = try #require(P256CombTable(point))
            let n = P256Order.modulus
            let scalars =
                [U256(1, 0, 0, 0), U256(2, 0, 0, 0), n.subtracting(U256(1, 0, 0, 0)).difference]
                + (0..<15).map { _ in Reference.random(below: n, using: &generator) }
            for k in scalars where !k.isZero {
                let product = Reference.multiply(k, d, modulo: n)
                let expected = try P256.Signing.PrivateKey(rawRepresentation: product.bigEndianBytes).publicKey
                #expect(try Self.x963(table.multiply(k)) == expected.x963Representation)
            }
            #expect(table.multiply(.zero).isInfinity)
            #expect(table.multiply(n).isInfinity)
        }
    }

    @Test("mixed addition handles infinity, equal and opposite points")
    func additionEdgeCases() throws {
        let g = P256Affine.generator
        let twice = P256Jacobian(g).doubled()
        #expect(try Self.x963(P256Jacobian(g).adding(g)) == (try Self.x963(twice)))
        #expect(P256Jacobian(g).adding(g.negated).isInfinity)
        #expect(try Self.x963(P256Jacobian.infinity.adding(g)) == (try Self.x963(P256Jacobian(g))))
        #expect(P256Jacobian.infinity.doubled().isInfinity)
        // The same point in a different Jacobian representation (Z ≠ 1) is still recognised as equal.
        let three = twice.adding(g)
        let threeAffine = try #require(P256Jacobian.normalize([three])?.first)
        #expect(try Self.x963(three.adding(threeAffine)) == (try Self.x963(three.doubled())))
        #expect(three.adding(threeAffine.negated).isInfinity)
    }

    @Test("points off the curve or with coordinates of p or more are refused")
    func pointValidation() throws {
        let (x, y) = P256Affine.generator.plainCoordinates
        #expect(P256Affine(x: x, y: y) != nil)
        var badY = y
        badY[31] ^= 1
        #expect(P256Affine(x: x, y: badY) == nil)
        #expect(P256TableVerifier(x: x, y: badY) == nil)
        let p = P256Field.modulus
        // (x + p, y) names the same point but is not a canonical encoding.
        let (xPlusP, carry) = try #require(U256(bigEndian: x)).adding(p)
        if !carry { #expect(P256Affine(x: xPlusP.bigEndianBytes, y: y) == nil) }
        #expect(P256Affine(x: p.bigEndianBytes, y: y) == nil)
        #expect(P256Affine(x: x.dropLast(), y: y) == nil)
    }

    static func x963(_ point: P256Jacobian) throws -> Data {
        let affine = try #require(P256Jacobian.normalize([point])?.first)
        let (x, y) = affine.plainCoordinates
        return Data([4] + x + y)
    }
}

/// Slow, obviously correct modular arithmetic for the tests: double-and-add, one bit at a time.
enum Reference {
    static func add(_ a: U256, _ b: U256, modulo m: U256) -> U256 {
        let (sum, carry) = a.adding(b)
        let (reduced, borrow) = sum.subtracting(m)
        return carry || !borrow ? reduced : sum
    }

    static func multiply(_ a: U256, _ b: U256, modulo m: U256) -> U256 {
        var result = U256.zero
        for index in (0..<256).reversed() {
            result = add(result, result, modulo: m)
            let limb = [b.l0, b.l1, b.l2, b.l3][index / 64]
            if (limb >> UInt64(index % 64)) & 1 == 1 { result = add(result, a, modulo: m) }
        }
        return result
    }

    static func random(below m: U256, using generator: inout some RandomNumberGenerator) -> U256 {
        while true {
            let value = U256(generator.next(), generator.next(), generator.next(), generator.next())
            if value.isLess(than: m) { return value }
        }
    }
}
