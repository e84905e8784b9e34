import Foundation
@_spi(Tooling) import HaapiDriver

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

    /// What a proof's nonce is to this server.
    enum Verdict: Equatable {
        /// Issued, and still accepted.
        case current
        /// Issued, but no longer accepted: the client should take the fresh one.
        case stale
        /// Never issued by this server (or so long ago it is forgotten).
        case unknown
    }

    func check(_ nonce: String, now: Date) -> Verdict {
        let age = now.timeIntervalSince(issuedAt)
        if ConstantTime.equals(nonce, current) { return age >= 2 * rotationInterval ? .stale : .current }
        if let previous, ConstantTime.equals(nonce, previous) { return age < rotationInterval ? .current : .stale }
        return .unknown
    }

    func rotate(now: Date) {
        previous = current
        current = SecureRandom.token(byteCount: 24)
        issuedAt = now
    }
}
