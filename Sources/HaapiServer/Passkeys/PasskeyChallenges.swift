import Foundation

/// Challenges the RP handed out and has not seen back yet. Each is used at most once and expires.
actor PasskeyChallenges {
    struct Pending: Sendable {
        enum Ceremony: Sendable { case registration, authentication }
        let ceremony: Ceremony
        let username: String?
        let userHandle: Data?
        let expiresAt: Date
    }

    private var pending: [Data: Pending] = [:]

    func issue(_ challenge: Data, _ entry: Pending, now: Date) {
        pending = pending.filter { $0.value.expiresAt > now }
        pending[challenge] = entry
    }

    /// The pending ceremony for `challenge`, removed so a replay finds nothing.
    func take(_ challenge: Data, now: Date) -> Pending? {
        guard let entry = pending.removeValue(forKey: challenge), entry.expiresAt > now else { return nil }
        return entry
    }
}
