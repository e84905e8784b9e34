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
        if let previous, ConstantTime.equals(nonce, previous) {
            return now.timeIntervalSince(issuedAt) < rotationInterval
        }
        return false
    }

    func rotate(now: Date) {
        previous = current
        current = SecureRandom.token(byteCount: 24)
        issuedAt = now
    }
}
