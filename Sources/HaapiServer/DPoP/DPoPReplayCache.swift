import Crypto
import Foundation

/// Remembers proof ids until they could no longer pass the `iat` check, so each proof is used once.
///
/// Bounded: the ids a flood can make it keep are limited in count (`capacity`) and size (`maxIDLength`).
/// When it is full of live ids it refuses new proofs rather than forget one (forgetting would let that
/// proof be replayed); the entries expire within two `iat` windows, so it recovers by itself.
///
/// Compact, because a busy server keeps one entry per proof for a whole window (60 s of requests): an entry
/// is the first 8 bytes of SHA-256 over the key thumbprint and the `jti`, not the two strings, of which an
/// ``ExpiringKeyTable`` keeps the top 44 bits with the expiry second in one 8-byte slot (in a table sized
/// once for `capacity`, whose pages the kernel provides as they are first written). A collision can only
/// refuse a fresh proof as "replayed", never accept a replay (the same pair always gives the same bits), and
/// to aim one at somebody else's proof an attacker would need that proof's random `jti` before it is sent.
actor DPoPReplayCache {
    enum Outcome: Equatable { case accepted, replayed, full }

    static let maxIDLength = 256
    private let table: ExpiringKeyTable

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
        switch table.insert(Self.key(jkt: jkt, jti: jti), expiry: until, now: second) {
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
    /// The first 64 bits of SHA-256("jkt jti").
    fileprivate static func key(jkt: String, jti: String) -> UInt64 {
        // Hashed from the strings' own UTF-8 buffers, without joining them first: this runs for every proof.
        var hasher = SHA256()
        var (jkt, jti, space) = (jkt, jti, UInt8(ascii: " "))
        jkt.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        withUnsafeBytes(of: &space) { hasher.update(bufferPointer: $0) }
        jti.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        return hasher.finalize().withUnsafeBytes { bytes in
            bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
    }
}
