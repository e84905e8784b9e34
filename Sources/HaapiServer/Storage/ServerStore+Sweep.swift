import Foundation
import GRDB

extension ServerStore {
    /// What one sweep deleted, per table.
    struct SweepResult: Equatable, Sendable {
        var codes = 0
        var refreshTokens = 0
        var accessTokens = 0
        var lockouts = 0

        var total: Int { codes + refreshTokens + accessTokens + lockouts }
    }

    /// Deletes rows that can no longer matter, in one transaction:
    /// - access and refresh tokens past their expiry (an expired token is refused whatever its status, and a
    ///   family's revocation is also written on its access tokens);
    /// - authorization codes expired for longer than `codeRetention`: a used code is kept that long so that
    ///   a replay still revokes what it issued (RFC 9700 §4.5), after which its tokens have expired anyway;
    /// - lockouts whose lock and failure window have both passed.
    func deleteExpired(now: Date, codeRetention: TimeInterval, lockoutWindow: TimeInterval) throws -> SweepResult {
        let seconds = now.timeIntervalSince1970
        return try database.write { db in
            var result = SweepResult()
            try db.execute(sql: "DELETE FROM access_tokens WHERE expires_at <= ?", arguments: [seconds])
            result.accessTokens = db.changesCount
            try db.execute(sql: "DELETE FROM refresh_tokens WHERE expires_at <= ?", arguments: [seconds])
            result.refreshTokens = db.changesCount
            try db.execute(sql: "DELETE FROM authorization_codes WHERE expires_at <= ?", arguments: [seconds - codeRetention])
            result.codes = db.changesCount
            try db.execute(sql: """
                DELETE FROM lockouts WHERE (locked_until IS NULL OR locked_until <= ?) AND (last_failure IS NULL OR last_failure <= ?)
                """, arguments: [seconds, seconds - lockoutWindow])
            result.lockouts = db.changesCount
            return result
        }
    }
}

extension DevServer {
    /// How often expired rows are deleted while the server runs.
    static let sweepInterval: Duration = .seconds(60)

    /// Deletes what has expired, now and then every `sweepInterval`, until the task is cancelled.
    func sweepPeriodically() async {
        while !Task.isCancelled {
            sweepOnce()
            try? await Task.sleep(for: Self.sweepInterval)
        }
    }

    @discardableResult
    func sweepOnce() -> ServerStore.SweepResult {
        // Codes are kept for as long as the tokens they issued may live, so a replay still revokes them.
        let longestAccess = configuration.clients.compactMap(\.accessTokenLifetime).max() ?? 0
        let retention = TimeInterval(max(configuration.lifetimes.accessToken, configuration.lifetimes.haapiAccessToken, longestAccess))
        return (try? store.deleteExpired(now: clock(), codeRetention: retention,
                                         lockoutWindow: TimeInterval(configuration.security.lockoutSeconds))) ?? .init()
    }
}
