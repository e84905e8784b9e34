import Foundation

/// Failure counters for names that are not accounts: kept in memory, bounded and expiring, and answering
/// exactly like the counters of real accounts (which live in the database), so the lockout itself does not
/// tell an attacker which names exist.
actor UnknownNameAttempts {
    private struct Record: Sendable {
        var failures: Int
        var lockedUntil: Date?
    }

    private var records: ExpiringStore<String, Record>

    init(capacity: Int = 50_000) {
        records = ExpiringStore(capacity: capacity)
    }

    func isLocked(_ key: String, now: Date) -> Bool {
        guard let until = records.value(for: key, now: now)?.lockedUntil else { return false }
        return until > now
    }

    /// Counts a failure and returns the count; the record lives one lockout period past the last failure.
    func recordFailure(_ key: String, maxFailures: Int, lockFor seconds: TimeInterval, now: Date) -> Int {
        var record = records.value(for: key, now: now) ?? Record(failures: 0)
        record.failures += 1
        if record.failures >= maxFailures { record.lockedUntil = now.addingTimeInterval(seconds) }
        records.set(record, for: key, expiresAt: now.addingTimeInterval(seconds), now: now)
        return record.failures
    }

    func clear(_ key: String, now: Date) {
        records.remove(key, now: now)
    }

    var count: Int { records.count }
}

/// What a counter is for; each purpose counts separately for the same account.
enum AttemptPurpose: String {
    case password
    /// Wrong one-time codes: counted per account, so a new code, a resend or a new flow does not reset them.
    case emailCode = "otp"

    func key(_ name: String) -> String {
        self == .password ? name : rawValue + ":" + name
    }
}

/// The outcome of a password check.
enum PasswordCheck {
    case success(StoredUser)
    case locked, incorrect, busy
}
