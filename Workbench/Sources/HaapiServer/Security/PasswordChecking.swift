import Foundation

/// Password checks with lockout, shared by the HAAPI authenticators and the Authentication Hub: the hashing
/// runs on the pool, and accounts and unknown names fail and lock the same way.
protocol PasswordChecking {
    var store: ServerStore { get }
    var configuration: ServerConfiguration { get }
    var passwords: PasswordHasher { get }
    var passwordPool: PasswordHashingPool { get }
    var unknownNameAttempts: UnknownNameAttempts { get }
    var clock: @Sendable () -> Date { get }
}

extension PasswordChecking {
    /// Whether the account (or unknown name) is locked for `purpose`.
    func isLocked(_ name: String, isAccount: Bool, for purpose: AttemptPurpose) async throws -> Bool {
        let now = clock()
        if isAccount { return try await store.lockedUntil(purpose.key(name), now: now) != nil }
        return await unknownNameAttempts.isLocked(purpose.key(name.lowercased()), now: now)
    }

    /// Counts a failure; returns true when this failure (or an earlier one) locked the name.
    func recordFailure(_ name: String, isAccount: Bool, for purpose: AttemptPurpose) async throws -> Bool {
        let limits = configuration.security
        let now = clock()
        let failures: Int
        if isAccount {
            failures = try await store.recordFailedLogin(
                purpose.key(name), maxFailures: limits.maxFailedLogins, lockFor: limits.lockoutSeconds, now: now)
        } else {
            failures = await unknownNameAttempts.recordFailure(
                purpose.key(name.lowercased()), maxFailures: limits.maxFailedLogins,
                lockFor: TimeInterval(limits.lockoutSeconds), now: now)
        }
        return failures >= limits.maxFailedLogins
    }

    func clearFailures(_ name: String, for purpose: AttemptPurpose) async throws {
        try await store.clearFailedLogins(purpose.key(name))
    }

    /// Verifies a password with lockout: N failures lock the name for a while. Accounts keep their counter
    /// in the database (a restart does not reset it); unknown names get a bounded in-memory counter that
    /// answers the same way, and the same hashing cost, so nothing here tells which accounts exist.
    /// The hashing runs on the password pool, never on the request threads. A database failure is thrown
    /// (a 500 for the caller), never taken for an unknown or unlocked account.
    func checkPassword(username: String, password: String) async throws -> PasswordCheck {
        let user = try await store.user(named: username)
        if try await isLocked(username, isAccount: user != nil, for: .password) { return .locked }
        let stored = user?.passwordHash ?? passwords.unmatchableHash()
        let hasher = passwords
        let matches: Bool
        do {
            matches = try await passwordPool.run { hasher.verify(password, against: stored) }
        } catch {
            return .busy
        }
        guard matches, let user else {
            return try await recordFailure(username, isAccount: user != nil, for: .password) ? .locked : .incorrect
        }
        try await clearFailures(user.username, for: .password)
        return .success(user)
    }
}
