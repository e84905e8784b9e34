import Crypto
import Foundation

/// Remembers proof ids until they could no longer pass the `iat` check, so each proof is used once.
///
/// Bounded: the ids a flood can make it keep are limited in count (`capacity`) and size (`maxIDLength`).
/// When it is full of live ids it refuses new proofs rather than forget one (forgetting would let that
/// proof be replayed); the entries expire within two `iat` windows, so it recovers by itself.
///
/// Compact, because a busy server keeps one entry per proof for a whole window (60 s of requests):
/// - an entry is 16 bytes of SHA-256 over the key thumbprint and the `jti`, not the two strings (a false
///   "replayed" would need a second preimage of a 128-bit hash);
/// - entries are grouped by the second they expire in, and whole seconds are dropped as time passes, so an
///   entry costs its key, a 4-byte expiry and one slot in its second's list (about 60 bytes in all,
///   measured by scripts/bench.sh), and lookups and inserts stay O(1).
actor DPoPReplayCache {
    enum Outcome: Equatable { case accepted, replayed, full }

    static let maxIDLength = 256
    let capacity: Int
    /// Proof key → the second (since 1970) after which it is forgotten.
    private var seen: [ProofKey: UInt32] = [:]
    /// Expiry second → the keys that expire then.
    private var expiring: [UInt32: [ProofKey]] = [:]
    /// No bucket expires before this second, so sweeps before it have nothing to do.
    private var nextSweep: UInt32 = 0

    init(capacity: Int = 200_000) {
        self.capacity = max(capacity, 1)
    }

    /// Records `jti` for `jkt` until `expiry`.
    func record(jti: String, jkt: String, until expiry: Date, now: Date) -> Outcome {
        guard jti.utf8.count <= Self.maxIDLength, jkt.utf8.count <= Self.maxIDLength else { return .replayed }
        let second = Self.second(now)
        sweep(now: second)
        let key = ProofKey(jkt: jkt, jti: jti)
        if let until = seen[key], until > second { return .replayed }
        guard seen.count < capacity else { return .full }
        let until = max(Self.second(expiry), second == .max ? .max : second + 1)
        seen[key] = until
        expiring[until, default: []].append(key)
        nextSweep = min(nextSweep, until)
        return .accepted
    }

    /// Records `jti` for `jkt`; false when that pair was seen before, or cannot be remembered now.
    func register(jti: String, jkt: String, until expiry: Date, now: Date) -> Bool {
        record(jti: jti, jkt: jkt, until: expiry, now: now) == .accepted
    }

    var count: Int { seen.count }

    /// Drops every second that has passed. At most one pass over the (few hundred) pending seconds per
    /// second of time, so it is amortised O(1) per request.
    private func sweep(now: UInt32) {
        guard now >= nextSweep, !expiring.isEmpty else { return }
        var earliest = UInt32.max
        for (until, keys) in expiring {
            if until <= now {
                for key in keys where seen[key] == until { seen[key] = nil }
                expiring[until] = nil
            } else {
                earliest = min(earliest, until)
            }
        }
        nextSweep = earliest
    }

    /// Whole seconds since 1970, rounded up and clamped, so no date (however far off) can trap.
    private static func second(_ date: Date) -> UInt32 {
        let seconds = date.timeIntervalSince1970.rounded(.up)
        guard seconds.isFinite else { return seconds > 0 ? .max : 0 }
        return UInt32(min(max(seconds, 0), Double(UInt32.max)))
    }
}

/// 128 bits of SHA-256("jkt jti").
private struct ProofKey: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    init(jkt: String, jti: String) {
        var hasher = SHA256()
        hasher.update(data: Data(jkt.utf8))
        hasher.update(data: Data([0x20]))
        hasher.update(data: Data(jti.utf8))
        let digest = hasher.finalize()
        var high: UInt64 = 0
        var low: UInt64 = 0
        digest.withUnsafeBytes { bytes in
            for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
        }
        self.high = high
        self.low = low
    }
}
