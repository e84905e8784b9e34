import Crypto
import Foundation

/// Remembers proof ids until they could no longer pass the `iat` check, so each proof is used once.
///
/// Bounded: the ids a flood can make it keep are limited in count (`capacity`) and size (`maxIDLength`).
/// When it is full of live ids it refuses new proofs rather than forget one (forgetting would let that
/// proof be replayed); the entries expire within two `iat` windows, so it recovers by itself.
///
/// Compact, because a busy server keeps one entry per proof for a whole window (60 s of requests):
/// - an entry is the first 8 bytes of SHA-256 over the key thumbprint and the `jti`, not the two strings. A
///   collision can only refuse a fresh proof as "replayed", never accept a replay (the same pair always gives
///   the same 8 bytes), and to aim one at somebody else's proof an attacker would need that proof's random
///   `jti` before it is sent;
/// - the live entries are one set; entries are also listed under the second they expire in, and whole
///   seconds are dropped as time passes. An entry costs its 8 bytes in the set's table (which is between 3/8
///   and 3/4 full) and 8 in its second's list: about 20–40 bytes, half of the dictionary of 16-byte keys and
///   expiry times this replaced (heap after scripts/bench.sh's phases: 15.4 → 9.6 MiB). Lookups and inserts
///   stay O(1).
actor DPoPReplayCache {
    enum Outcome: Equatable { case accepted, replayed, full }

    static let maxIDLength = 256
    let capacity: Int
    /// The keys not yet expired: the sweep at the start of every call removes the others first.
    private var seen: Set<UInt64> = []
    /// Expiry second (since 1970) → the keys that expire then.
    private var expiring: [UInt32: [UInt64]] = [:]
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
        let key = Self.key(jkt: jkt, jti: jti)
        if seen.contains(key) { return .replayed }
        guard seen.count < capacity else { return .full }
        let until = max(Self.second(expiry), second == .max ? .max : second + 1)
        seen.insert(key)
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
                // A key is listed once: it is inserted again only after this removal.
                for key in keys { seen.remove(key) }
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

extension DPoPReplayCache {
    /// The first 64 bits of SHA-256("jkt jti").
    fileprivate static func key(jkt: String, jti: String) -> UInt64 {
        var hasher = SHA256()
        hasher.update(data: Data(jkt.utf8))
        hasher.update(data: Data([0x20]))
        hasher.update(data: Data(jti.utf8))
        return hasher.finalize().withUnsafeBytes { bytes in
            bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }
}
