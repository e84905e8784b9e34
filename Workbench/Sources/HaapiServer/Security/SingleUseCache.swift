import Foundation

/// Remembers single-use ids (client attestation tokens, client assertions, each with the key or client it
/// belongs to) until they expire, so each is redeemed once.
///
/// A plain dictionary from the pair to its expiry. Bounded: what a flood can make it keep is limited in count
/// (`capacity`) and size (`maxIDLength`). When it is full of live ids it refuses new ones rather than forget
/// one (forgetting would let that one be used again); entries expire, so it recovers by itself.
///
/// Like ``ProofReplayFilter`` it keeps its own clock, the latest second a request has brought: expired
/// entries are dropped by that second only, and an id whose expiry is not after it is refused, so a request
/// that reaches the cache late, or a clock stepping back, cannot find a used id forgotten.
/// DPoP proofs, far more numerous, go to ``ProofReplayFilter``.
actor SingleUseCache {
    enum Outcome: Equatable { case accepted, replayed, full }

    private struct Pair: Hashable {
        let jkt: String
        let jti: String
    }

    static let maxIDLength = 256
    let capacity: Int
    private var expiries: [Pair: UInt32] = [:]
    private var latestSecond: UInt32 = 0
    private var sweptAt: UInt32 = 0

    /// For single-use tokens (client attestation tokens, client assertions), one per login or client
    /// authentication: 10 000 live over their two minutes is 80 a second, more than password hashing lets
    /// this server log in. Memory: at most 10 000 pairs of ids of at most 256 bytes each, about 5 MiB; the
    /// ids clients send (22-character jtis, 43-character thumbprints or client ids) take about 245 B a pair
    /// (scripts/bench/replay-dictionary-memory.swift), 2.4 MiB when full.
    static let singleUseCapacity = 10_000

    init(capacity: Int = singleUseCapacity) {
        self.capacity = max(capacity, 1)
    }

    /// Records `jti` for `jkt` until `expiry`.
    func record(jti: String, jkt: String, until expiry: Date, now: Date) -> Outcome {
        guard jti.utf8.count <= Self.maxIDLength, jkt.utf8.count <= Self.maxIDLength else { return .replayed }
        latestSecond = max(latestSecond, Self.second(now))
        let due = Self.second(expiry)
        // An entry that old may have been swept already: it cannot be told from a replay.
        guard due > latestSecond else { return .replayed }
        let pair = Pair(jkt: jkt, jti: jti)
        if let known = expiries[pair], known > latestSecond { return .replayed }
        if expiries.count >= capacity { sweep() }
        guard expiries.count < capacity else { return .full }
        expiries[pair] = due
        return .accepted
    }

    /// Records `jti` for `jkt`; false when that pair was seen before, or cannot be remembered now.
    func register(jti: String, jkt: String, until expiry: Date, now: Date) -> Bool {
        record(jti: jti, jkt: jkt, until: expiry, now: now) == .accepted
    }

    /// The entries not yet swept (a full cache drops those that have expired, at most once a second).
    var count: Int { expiries.count }

    private func sweep() {
        guard sweptAt != latestSecond else { return }
        sweptAt = latestSecond
        let now = latestSecond
        expiries = expiries.filter { $0.value > now }
    }

    /// Whole seconds since 1970, rounded up and clamped, so no date (however far off) can trap.
    private static func second(_ date: Date) -> UInt32 {
        let seconds = date.timeIntervalSince1970.rounded(.up)
        guard seconds.isFinite else { return seconds > 0 ? .max : 0 }
        return UInt32(min(max(seconds, 0), Double(UInt32.max)))
    }
}
