import Foundation

/// Remembers proof ids until they could no longer pass the `iat` check, so each proof is used once.
///
/// Bounded: the ids a flood can make it keep are limited in count (`capacity`) and size (`maxIDLength`).
/// When it is full of live ids it refuses new proofs rather than forget one (forgetting would let that
/// proof be replayed); the entries expire within two `iat` windows, so it recovers by itself.
///
/// Compact, because a busy server keeps one entry per proof for a whole window (60 s of requests): an entry
/// is a 64-bit keyed hash of the key thumbprint and the `jti`, not the two strings, of which an
/// ``ExpiringKeyTable`` keeps the top 44 bits with the expiry second in one 8-byte slot (in a table sized
/// once for `capacity`, whose pages the kernel provides as they are first written). A collision can only
/// refuse a fresh proof as "replayed", never accept a replay (the same pair always gives the same bits).
/// The hash is SipHash (the standard library's `Hasher`) under a random key of this cache's, so nobody can
/// pick a `jti` that collides with another on purpose: unlike a plain SHA-256 prefix (what it replaced), its
/// bits cannot be computed outside this process.
///
/// An actor, not a lock, though recording never suspends and the hop costs the token endpoint two more trips
/// through its event loop (about 6,700 instructions, under 1 % of a token request). Behind `LockedValue` the
/// endpoint answered 3–4 % more requests a second at 8 connections, but its p99 latency went from
/// 1.1–1.5 ms to 3.3–3.8 ms (five runs each, 2 cores shared with wrk), and neither trying the lock a few
/// times before sleeping, nor a yield in place of the hop, nor a lock that is only ever tried (the caller
/// yields its loop instead of waiting) brought it back. It is the scheduler, not the lock: with wrk at
/// `nice 10` the version without the hop has the better p99; event loops that never go idle lose the core to
/// wrk's threads for a tick more often. Bench runs without the hop gave 0.32–0.35× (docs/BENCHMARKS.md).
actor DPoPReplayCache {
    enum Outcome: Equatable { case accepted, replayed, full }

    static let maxIDLength = 256
    private let table: ExpiringKeyTable
    /// The random key of ``key(jkt:jti:)``, mixed into `Hasher` ahead of the pair, so the bits stay this
    /// cache's own even in a process whose `Hasher` seed is fixed (`SWIFT_DETERMINISTIC_HASHING`).
    private let hashKey = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    /// For DPoP proofs: 200 000 live proofs is 60 s of about 3,300 requests/s, or 10 s of the token endpoint's
    /// rate on the 2-core bench machine (scripts/bench.sh keeps its phases within it); a full table is 2 MiB.
    static let proofCapacity = 200_000
    /// For single-use tokens (client attestation tokens, client assertions), one per login or client
    /// authentication: 10 000 live over their two minutes is 80 a second, more than password hashing lets
    /// this server log in; a full table is 128 KiB. A smaller table matters because each new entry lands on
    /// a random page, which then stays resident.
    static let singleUseCapacity = 10_000

    init(capacity: Int = proofCapacity) {
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

extension DPoPReplayCache {
    /// SipHash of `jkt` and `jti` under ``hashKey`` (a string's hash ends it with a terminator byte, so no two
    /// pairs run together).
    nonisolated func key(jkt: String, jti: String) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(hashKey.0)
        hasher.combine(hashKey.1)
        hasher.combine(jkt)
        hasher.combine(jti)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
