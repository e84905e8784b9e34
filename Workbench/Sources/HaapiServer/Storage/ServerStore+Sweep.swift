import Foundation
import GRDB
import Logging
import ServiceLifecycle

extension ServerStore {
    /// What one sweep deleted, per table.
    struct SweepResult: Equatable, Sendable {
        var codes = 0
        var refreshTokens = 0
        var accessTokens = 0
        var lockouts = 0
        var revokedSealedTokens = 0

        var total: Int { codes + refreshTokens + accessTokens + lockouts + revokedSealedTokens }
    }

    /// Deletes rows that can no longer matter, in one transaction:
    /// - stored access tokens, and revocations of sealed ones, past their expiry (an expired token is refused
    ///   whatever its status);
    /// - refresh tokens and authorization codes expired for longer than `retention` (the longest access-token
    ///   lifetime): a revoked family must outlive the access tokens that check it, and a used code is kept
    ///   so that a replay still revokes what it issued (RFC 9700 §4.5);
    /// - lockouts whose lock and failure window have both passed.
    func deleteExpired(now: Date, retention: TimeInterval, lockoutWindow: TimeInterval) async throws -> SweepResult {
        let seconds = now.timeIntervalSince1970
        return try await database.write { db in
            var result = SweepResult()
            try db.execute(sql: "DELETE FROM access_tokens WHERE expires_at <= ?", arguments: [seconds])
            result.accessTokens = db.changesCount
            try db.execute(sql: "DELETE FROM revoked_access_tokens WHERE expires_at <= ?", arguments: [seconds])
            result.revokedSealedTokens = db.changesCount
            try db.execute(sql: "DELETE FROM refresh_tokens WHERE expires_at <= ?", arguments: [seconds - retention])
            result.refreshTokens = db.changesCount
            try db.execute(
                sql: "DELETE FROM authorization_codes WHERE expires_at <= ?", arguments: [seconds - retention])
            result.codes = db.changesCount
            try db.execute(
                sql: """
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

    @discardableResult
    func sweepOnce() async -> ServerStore.SweepResult {
        // Codes and refresh tokens are kept for as long as the access tokens they issued may live.
        let longestAccess = configuration.clients.compactMap(\.accessTokenLifetime).max() ?? 0
        let retention = TimeInterval(
            max(configuration.lifetimes.accessToken, configuration.lifetimes.haapiAccessToken, longestAccess))
        do {
            return try await store.deleteExpired(
                now: clock(), retention: retention, lockoutWindow: TimeInterval(configuration.security.lockoutSeconds))
        } catch is CancellationError {
            // The server is stopping (or never started: a port in use): not a failure to report.
            return .init()
        } catch {
            // The next sweep tries again; the rows it could not delete are refused on their expiry anyway.
            Logger(label: "haapi.devserver").error("sweep of expired rows failed: \(error)")
            return .init()
        }
    }
}

/// The sweep of expired rows as a service of the server's service group: it deletes what has expired now and
/// every `DevServer.sweepInterval`, and ends when the group shuts down.
struct SweepService: Service {
    let server: DevServer

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await server.sweepOnce()
                try? await Task.sleep(for: DevServer.sweepInterval)
            }
        }
    }
}
