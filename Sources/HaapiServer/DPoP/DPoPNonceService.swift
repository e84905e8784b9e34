import Foundation
import HaapiDriver

/// Server-provided DPoP nonces (RFC 9449 §8–9). One nonce is current at a time; after a rotation the
/// previous one is still accepted for one more period, so requests in flight do not fail.
actor DPoPNonceService {
    private let rotationInterval: TimeInterval
    private var current: String
    private var previous: String?
    private var issuedAt: Date

    init(rotationInterval: TimeInterval, now: Date) {
        self.rotationInterval = rotationInterval
        current = SecureRandom.token(byteCount: 24)
        issuedAt = now
    }

    /// The nonce to send in `DPoP-Nonce`; rotates when the current one is old enough.
    func nonce(now: Date) -> String {
        if now.timeIntervalSince(issuedAt) >= rotationInterval { rotate(now: now) }
        return current
    }

    func isValid(_ nonce: String, now: Date) -> Bool {
        if now.timeIntervalSince(issuedAt) >= 2 * rotationInterval { return false }
        if ConstantTime.equals(nonce, current) { return true }
        if let previous, ConstantTime.equals(nonce, previous) { return now.timeIntervalSince(issuedAt) < rotationInterval }
        return false
    }

    func rotate(now: Date) {
        previous = current
        current = SecureRandom.token(byteCount: 24)
        issuedAt = now
    }
}

/// Remembers proof ids until they could no longer pass the `iat` check, so each proof is used once.
///
/// Bounded: the ids a flood can make it keep are limited in count (`capacity`) and size (`maxIDLength`).
/// When it is full of live ids it refuses new proofs rather than forget one (forgetting would let that
/// proof be replayed); the entries expire within two `iat` windows, so it recovers by itself.
actor DPoPReplayCache {
    enum Outcome: Equatable { case accepted, replayed, full }

    static let maxIDLength = 256
    private var seen: ExpiringStore<String, Bool>

    init(capacity: Int = 200_000) {
        seen = ExpiringStore(capacity: capacity)
    }

    /// Records `jti` for `jkt`.
    func record(jti: String, jkt: String, until expiry: Date, now: Date) -> Outcome {
        guard jti.utf8.count <= Self.maxIDLength, jkt.utf8.count <= Self.maxIDLength else { return .replayed }
        switch seen.insertIfAbsent(true, for: jkt + " " + jti, expiresAt: expiry, now: now) {
        case .inserted: return .accepted
        case .present: return .replayed
        case .full: return .full
        }
    }

    /// Records `jti` for `jkt`; false when that pair was seen before, or cannot be remembered now.
    func register(jti: String, jkt: String, until expiry: Date, now: Date) -> Bool {
        record(jti: jti, jkt: jkt, until: expiry, now: now) == .accepted
    }

    var count: Int { seen.count }
}
