import Crypto
import Foundation
import HaapiDriver

/// The ``P256TableVerifier``s of the P-256 keys that keep signing DPoP proofs, by key. A key's table is
/// built when the key has signed a second valid proof (a table costs about seven checks to build and
/// 33 KiB to keep, so it is for keys that come back, as a DPoP client's does on every request); until
/// then, and for every key without a table, BoringSSL checks the signature.
///
/// Bounded: at most ``tableCapacity`` tables and ``sightingCapacity`` keys counted; either map starts
/// over when full, so a flood of keys costs a fixed amount of memory (about 0.7 MiB) and only ever
/// slows its own requests down to BoringSSL's speed.
final class P256TableCache: Sendable {
    private struct State {
        var tables: [[UInt8]: P256TableVerifier] = [:]
        var sightings: [[UInt8]: Int] = [:]
        /// The key looked up last and its verifier: most proofs come from the key of the proof before.
        var last: (key: [UInt8], verifier: P256TableVerifier)?
    }

    static let tableCapacity = 8
    static let sightingCapacity = 1024
    /// Valid signatures a key makes (checked by BoringSSL) before its table is built.
    static let signaturesBeforeTable = 2

    private let state = LockedValue(State())

    /// The verifier of `key` (x‖y, 64 bytes), if its table is built.
    func verifier(for key: [UInt8]) -> P256TableVerifier? {
        state.withLock { state in
            if let last = state.last, last.key == key { return last.verifier }
            guard let verifier = state.tables[key] else { return nil }
            state.last = (key, verifier)
            return verifier
        }
    }

    /// Counts a valid signature by `key` that was checked without a table, and builds the table (outside
    /// the lock) once the key has made ``signaturesBeforeTable`` of them.
    func recordValidSignature(by key: [UInt8]) {
        let due = state.withLock { state -> Bool in
            if state.tables[key] != nil { return false }
            if state.sightings.count >= Self.sightingCapacity { state.sightings.removeAll(keepingCapacity: true) }
            let count = (state.sightings[key] ?? 0) + 1
            guard count >= Self.signaturesBeforeTable else {
                state.sightings[key] = count
                return false
            }
            state.sightings[key] = nil
            return true
        }
        guard due, let verifier = P256TableVerifier(x: key.prefix(32), y: key.dropFirst(32)) else { return }
        state.withLock { state in
            if state.tables.count >= Self.tableCapacity {
                state.tables.removeAll(keepingCapacity: true)
                state.last = nil
            }
            state.tables[key] = verifier
        }
    }

    /// `DPoPProof.resolveKey`, with the verifier of an ES256 key on P-256 going through this cache.
    func resolveKey(_ jwkValue: JSONValue, algorithm: JWSAlgorithm) throws -> DPoPProof.ResolvedKey {
        let resolved = try DPoPProof.resolveKey(jwkValue, algorithm: algorithm)
        guard algorithm == .es256, resolved.jwk.curve == "P-256", let x = resolved.jwk.bytes("x"),
            let y = resolved.jwk.bytes("y"), x.count == 32, y.count == 32
        else { return resolved }
        let verifier = CachedTableES256Verifier(fallback: resolved.verifier, key: x + y, tables: self)
        return DPoPProof.ResolvedKey(jwk: resolved.jwk, verifier: verifier, thumbprint: resolved.thumbprint)
    }

    var tableCount: Int { state.withLock { $0.tables.count } }
    var sightingCount: Int { state.withLock { $0.sightings.count } }
}

/// An ES256 verifier that uses the key's table from a ``P256TableCache`` when there is one, and otherwise
/// the key's BoringSSL verifier (counting its valid signatures towards a table).
struct CachedTableES256Verifier: JWSVerifier {
    let fallback: any JWSVerifier
    /// x‖y, 32 bytes each.
    let key: [UInt8]
    let tables: P256TableCache

    var algorithm: JWSAlgorithm { .es256 }

    func isValidSignature(_ signature: Data, for signingInput: Data) -> Bool {
        if let verifier = tables.verifier(for: key) {
            var hash = SHA256()
            signingInput.withUnsafeBytes { hash.update(bufferPointer: $0) }
            return verifier.isValidSignature(signature, for: hash.finalize())
        }
        guard fallback.isValidSignature(signature, for: signingInput) else { return false }
        tables.recordValidSignature(by: key)
        return true
    }
}
