import Crypto
import Foundation
import HaapiDriver

/// The ``P256TableVerifier``s of the P-256 keys that keep signing DPoP proofs, by key. A key's table is
/// built when the key has signed a second valid proof within ``idleSeconds`` (a table costs about a
/// dozen BoringSSL checks to build and 53 KiB to keep, so it is for keys that come back, as a DPoP client's does on
/// every request); until then, and for every key without a table, BoringSSL checks the signature.
///
/// Bounded and expiring: a table or a count of a key unused for ``idleSeconds`` is dropped (swept at most
/// once a second, when a key is counted), so the tables are those of the clients active now; and at most
/// ``tableCapacity`` tables and ``sightingCapacity`` counted keys, either map starting over when full, so a
/// flood of keys costs a fixed amount of memory (under 0.6 MiB) and only slows its own requests down to
/// BoringSSL's speed.
final class P256TableCache: Sendable {
    /// A table and when it was last used; mutated only under the cache's lock.
    private final class Entry: @unchecked Sendable {
        let verifier: P256TableVerifier
        var lastUsed: UInt64

        init(_ verifier: P256TableVerifier, now: UInt64) {
            self.verifier = verifier
            lastUsed = now
        }
    }

    private struct State {
        var tables: [[UInt8]: Entry] = [:]
        /// Valid signatures counted per key without a table, and when the first was.
        var sightings: [[UInt8]: (count: Int, since: UInt64)] = [:]
        /// The key looked up last and its entry: most proofs come from the key of the proof before.
        var last: (key: [UInt8], entry: Entry)?
        var lastSweep: UInt64 = 0
    }

    static let tableCapacity = 8
    static let sightingCapacity = 1024
    /// Valid signatures a key makes (checked by BoringSSL) before its table is built.
    static let signaturesBeforeTable = 2
    /// How long a table or a count is kept without use.
    static let idleSeconds: UInt64 = 30

    private let state = LockedValue(State())
    /// Seconds on a clock that only goes forward.
    private let now: @Sendable () -> UInt64

    init(now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds / 1_000_000_000 }) {
        self.now = now
    }

    /// The verifier of `key` (x‖y, 64 bytes), if its table is built.
    func verifier(for key: [UInt8]) -> P256TableVerifier? {
        let time = now()
        return state.withLock { state in
            if let last = state.last, last.key == key {
                last.entry.lastUsed = time
                return last.entry.verifier
            }
            guard let entry = state.tables[key] else { return nil }
            entry.lastUsed = time
            state.last = (key, entry)
            return entry.verifier
        }
    }

    /// Counts a valid signature by `key` that was checked without a table, and builds the table (outside
    /// the lock) once the key has made ``signaturesBeforeTable`` of them.
    func recordValidSignature(by key: [UInt8]) {
        let time = now()
        let due = state.withLock { state -> Bool in
            Self.sweep(&state, now: time)
            if state.tables[key] != nil { return false }
            if state.sightings.count >= Self.sightingCapacity { state.sightings.removeAll(keepingCapacity: true) }
            let seen = state.sightings[key] ?? (0, time)
            guard seen.count + 1 >= Self.signaturesBeforeTable else {
                state.sightings[key] = (seen.count + 1, seen.since)
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
            state.tables[key] = Entry(verifier, now: time)
        }
    }

    /// Drops the tables and counts idle for ``idleSeconds`` or more, at most once a second.
    private static func sweep(_ state: inout State, now: UInt64) {
        guard now != state.lastSweep else { return }
        state.lastSweep = now
        let oldest = now >= idleSeconds ? now - idleSeconds : 0
        state.tables = state.tables.filter { $0.value.lastUsed > oldest }
        state.sightings = state.sightings.filter { $0.value.since > oldest }
        if let last = state.last, last.entry.lastUsed <= oldest { state.last = nil }
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
