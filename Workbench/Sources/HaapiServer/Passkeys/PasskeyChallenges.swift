import Foundation
@_spi(Tooling) import HaapiDriver

/// Challenges the web-app RP handed out and has not seen back yet. Each is used at most once, expires,
/// and the store is bounded (an unauthenticated caller can ask for as many as it likes).
actor PasskeyChallenges {
    struct Pending: Sendable {
        enum Ceremony: Sendable {
            /// Sign-up: the finalize creates the account `username`; it fails if the name was taken meanwhile.
            case newAccount
            /// A signed-in user adds a passkey to the account it proved it owns.
            case addToAccount
            case authentication
        }
        let ceremony: Ceremony
        let username: String?
        let userHandle: Data?
        let expiresAt: Date
    }

    private var pending: ExpiringStore<Data, Pending>

    init(capacity: Int = 10_000) {
        pending = ExpiringStore(capacity: capacity)
    }

    func issue(_ challenge: Data, _ entry: Pending, now: Date) {
        pending.set(entry, for: challenge, expiresAt: entry.expiresAt, now: now)
    }

    /// The pending ceremony for `challenge`, removed so a replay finds nothing.
    func take(_ challenge: Data, now: Date) -> Pending? {
        pending.remove(challenge, now: now)
    }

    var count: Int { pending.count }

    /// The store's work so far (``ExpiringStore/work``).
    var work: Int { pending.work }
}

/// Sign-in sessions of the web-app RP: a passkey sign-in yields one, and only its bearer may add another
/// passkey to that account. Bounded and expiring like every request-grown store.
actor RelyingPartySessions {
    private var sessions: ExpiringStore<String, String>
    let lifetime: TimeInterval

    init(capacity: Int = 10_000, lifetime: TimeInterval = 900) {
        sessions = ExpiringStore(capacity: capacity)
        self.lifetime = lifetime
    }

    /// A new session for `username`; the token is what the client presents (`Authorization: Bearer`).
    func open(for username: String, now: Date) -> String {
        let token = SecureRandom.token()
        sessions.set(username, for: TokenHash.of(token), expiresAt: now.addingTimeInterval(lifetime), now: now)
        return token
    }

    /// The account a session token signs in, if it is live.
    func username(for token: String, now: Date) -> String? {
        sessions.value(for: TokenHash.of(token), now: now)
    }

    /// Ends a session (sign-out); an unknown token changes nothing.
    func close(_ token: String, now: Date) {
        _ = sessions.remove(TokenHash.of(token), now: now)
    }
}
