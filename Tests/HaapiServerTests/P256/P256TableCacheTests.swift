import Crypto
import Foundation
import HaapiDriver
import HaapiModel
import HaapiRawClient
import Testing

@testable import HaapiServer

/// When a key gets its table, that the verifier through the cache stays exact, and that the cache is bounded.
@Suite("P-256 table cache")
struct P256TableCacheTests {
    static func resolved(_ key: SoftwareP256SigningKey, in cache: P256TableCache) throws -> any JWSVerifier {
        try cache.resolveKey(key.publicJWK.json, algorithm: .es256).verifier
    }

    static func signed(_ text: String, by key: SoftwareP256SigningKey) throws -> (Data, Data) {
        let input = Data(text.utf8)
        return (try key.signature(for: input), input)
    }

    @Test("a key's table is built at its second valid signature; invalid ones do not count")
    func buildsOnSecondValidSignature() throws {
        let cache = P256TableCache()
        let key = SoftwareP256SigningKey()
        let verifier = try Self.resolved(key, in: cache)
        #expect(verifier is CachedTableES256Verifier)
        let (signature, input) = try Self.signed("first", by: key)
        var forged = signature
        forged[5] ^= 0x40
        for _ in 0..<3 { #expect(!verifier.isValidSignature(forged, for: input)) }
        #expect(cache.tableCount == 0)
        #expect(verifier.isValidSignature(signature, for: input))
        #expect(cache.tableCount == 0)
        #expect(verifier.isValidSignature(signature, for: input))
        #expect(cache.tableCount == 1)
        // With the table: still exact.
        for round in 0..<20 {
            let (signature, input) = try Self.signed("message \(round)", by: key)
            #expect(verifier.isValidSignature(signature, for: input))
            var tampered = signature
            tampered[round % 64] ^= 1
            #expect(!verifier.isValidSignature(tampered, for: input))
            #expect(!verifier.isValidSignature(signature, for: input + Data([0])))
            #expect(!verifier.isValidSignature(signature.dropLast(), for: input))
            let (other, _) = try Self.signed("message \(round)", by: SoftwareP256SigningKey())
            #expect(!verifier.isValidSignature(other, for: input))
        }
        // Another resolution of the same key (another header) shares the table.
        let again = try Self.resolved(key, in: cache)
        let (next, nextInput) = try Self.signed("again", by: key)
        #expect(again.isValidSignature(next, for: nextInput))
        #expect(cache.tableCount == 1)
    }

    @Test("tables and counts of keys idle for idleSeconds are dropped")
    func expiry() throws {
        let clock = LockedValue<UInt64>(1000)
        let cache = P256TableCache(now: { clock.withLock { $0 } })
        let idle = P256TableCache.idleSeconds
        let active = SoftwareP256SigningKey()
        let verifier = try Self.resolved(active, in: cache)
        let (signature, input) = try Self.signed("m", by: active)
        for _ in 0..<2 { #expect(verifier.isValidSignature(signature, for: input)) }
        #expect(cache.tableCount == 1)
        // Used again just before it would expire: kept.
        clock.withLock { $0 += idle - 1 }
        #expect(verifier.isValidSignature(signature, for: input))
        let other = SoftwareP256SigningKey()
        let otherVerifier = try Self.resolved(other, in: cache)
        let (otherSignature, otherInput) = try Self.signed("m", by: other)
        #expect(otherVerifier.isValidSignature(otherSignature, for: otherInput))
        #expect(cache.tableCount == 1)
        #expect(cache.sightingCount == 1)
        // Idle for idleSeconds: the table goes at the next sweep, and so does the other key's first count,
        // so its next valid signature counts as a first one again.
        clock.withLock { $0 += idle }
        #expect(otherVerifier.isValidSignature(otherSignature, for: otherInput))
        #expect(cache.tableCount == 0)
        #expect(cache.sightingCount == 1)
        clock.withLock { $0 += 1 }
        #expect(otherVerifier.isValidSignature(otherSignature, for: otherInput))
        #expect(cache.tableCount == 1)
        // The expired key still verifies (through BoringSSL, then a new table).
        #expect(verifier.isValidSignature(signature, for: input))
        #expect(!verifier.isValidSignature(otherSignature, for: input))
    }

    @Test("other algorithms and curves keep their own verifiers")
    func onlyES256() throws {
        let cache = P256TableCache()
        let point = [UInt8](P384.Signing.PrivateKey().publicKey.x963Representation.dropFirst())
        let p384: JSONValue = .object([
            "kty": "EC", "crv": "P-384", "x": .string(Base64URL.encode(point.prefix(48))),
            "y": .string(Base64URL.encode(point.suffix(48))),
        ])
        #expect(!(try cache.resolveKey(p384, algorithm: .es384).verifier is CachedTableES256Verifier))
        #expect(cache.tableCount == 0)
    }

    @Test("at most tableCapacity tables and sightingCapacity counted keys")
    func bounded() throws {
        let cache = P256TableCache()
        var lastVerifier: (any JWSVerifier)?
        for _ in 0..<(P256TableCache.tableCapacity + 3) {
            let key = SoftwareP256SigningKey()
            let verifier = try Self.resolved(key, in: cache)
            let (signature, input) = try Self.signed("m", by: key)
            for _ in 0..<P256TableCache.signaturesBeforeTable {
                #expect(verifier.isValidSignature(signature, for: input))
            }
            #expect(cache.tableCount <= P256TableCache.tableCapacity)
            lastVerifier = verifier
        }
        #expect(cache.tableCount >= 1)
        let key = SoftwareP256SigningKey()
        let (signature, input) = try Self.signed("m", by: key)
        _ = lastVerifier
        for _ in 0..<(P256TableCache.sightingCapacity + 10) {
            let fresh = SoftwareP256SigningKey()
            let (freshSignature, freshInput) = try Self.signed("m", by: fresh)
            _ = try Self.resolved(fresh, in: cache).isValidSignature(freshSignature, for: freshInput)
        }
        #expect(cache.sightingCount <= P256TableCache.sightingCapacity)
        #expect(try Self.resolved(key, in: cache).isValidSignature(signature, for: input))
    }
}
