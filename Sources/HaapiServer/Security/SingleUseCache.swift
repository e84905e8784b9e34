import Foundation

/// Remembers single-use ids (client attestation tokens, client assertions, each with the key or client it
/// belongs to) until they expire, so each is redeemed once.
///
/// Bounded: what a flood can make it keep is limited in count (`capacity`) and size (`maxIDLength`). When it
/// is full of live ids it refuses new ones rather than forget one (forgetting would let that one be used
/// again); entries expire, so it recovers by itself.
///
/// An entry is a 64-bit keyed hash of the pair, of which an ``ExpiringKeyTable`` keeps the top 44 bits with
/// the expiry second in one 8-byte slot. A collision can only refuse a fresh id as "replayed", never accept
/// a replay (the same pair always gives the same bits). The hash is SipHash (the standard library's
/// `Hasher`) under a random key of this cache's, so nobody can pick an id that collides with another on
/// purpose. DPoP proofs, far more numerous, go to ``ProofReplayFilter``.
actor SingleUseCache {
    enum Outcome: Equatable { case accepted, replayed, full }

    static let maxIDLength = 256
    private let table: ExpiringKeyTable
    private let pairHash = KeyedPairHash()

    /// For single-use tokens (client attestation tokens, client assertions), one per login or client
    /// authentication: 10 000 live over their two minutes is 80 a second, more than password hashing lets
    /// this server log in; a full table is 128 KiB. A smaller table matters because each new entry lands on
    /// a random page, which then stays resident.
    static let singleUseCapacity = 10_000

    init(capacity: Int = singleUseCapacity) {
        table = ExpiringKeyTable(capacity: capacity)
    }

    /// Records `jti` for `jkt` until `expiry`. An expiry more than six days ahead (``ExpiringKeyTable/horizon``)
    /// cannot be kept that long, so it is refused as `full`; the callers' are at most two days ahead.
    func record(jti: String, jkt: String, until expiry: Date, now: Date) -> Outcome {
        guard jti.utf8.count <= Self.maxIDLength, jkt.utf8.count <= Self.maxIDLength else { return .replayed }
        let second = Self.second(now)
        let until = max(Self.second(expiry), second == .max ? .max : second + 1)
        switch table.insert(key(jkt: jkt, jti: jti), expiry: until, now: second) {
        case .inserted: return .accepted
        case .present: return .replayed
        case .full: return .full
        }
    }

    /// Records `jti` for `jkt`; false when that pair was seen before, or cannot be remembered now.
    func register(jti: String, jkt: String, until expiry: Date, now: Date) -> Bool {
        record(jti: jti, jkt: jkt, until: expiry, now: now) == .accepted
    }

    /// The entries not yet swept (the next call at a later second drops those that have expired).
    var count: Int { table.count }

    /// Whole seconds since 1970, rounded up and clamped, so no date (however far off) can trap.
    private static func second(_ date: Date) -> UInt32 {
        let seconds = date.timeIntervalSince1970.rounded(.up)
        guard seconds.isFinite else { return seconds > 0 ? .max : 0 }
        return UInt32(min(max(seconds, 0), Double(UInt32.max)))
    }
}

extension SingleUseCache {
    /// The keyed hash of the pair (``KeyedPairHash``): stable in one cache, different in another.
    nonisolated func key(jkt: String, jti: String) -> UInt64 { pairHash(jkt, jti) }
}
