import Foundation
import GRDB
import Testing

@testable import HaapiServer

@Suite("Periodic sweep of expired rows (issue 15, item 4)")
struct SweepTests {
    @Test(
        "expired access tokens and revocations, long-expired codes and refresh tokens, stale lockouts go; the rest stays"
    )
    func sweepDeletesOnlyWhatCannotMatter() async throws {
        let store = try ServerStore(path: nil)
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        func code(_ name: String, expiresIn seconds: TimeInterval) async throws {
            try await store.storeCode(
                name,
                AuthorizationCodeRecord(
                    clientID: "c", username: "u", redirectURI: "app://r", scope: "openid", jkt: nil, codeChallenge: nil,
                    nonce: nil,
                    authTime: now, expiresAt: now.addingTimeInterval(seconds)))
        }
        try await code("live-code", expiresIn: 60)
        try await code("recently-expired-code", expiresIn: -100)  // kept: a replay must still revoke its tokens
        try await code("old-code", expiresIn: -10_000)
        func access(_ name: String, expiresIn seconds: TimeInterval) async throws {
            try await store.storeAccessToken(
                name,
                AccessTokenRecord(
                    familyID: nil, clientID: "c", username: nil, scope: "s", jkt: nil, issuedAt: now,
                    expiresAt: now.addingTimeInterval(seconds), revoked: false))
        }
        try await access("live-access", expiresIn: 300)
        try await access("expired-access", expiresIn: -1)
        func refresh(_ name: String, expiresIn seconds: TimeInterval) async throws {
            try await store.storeRefreshToken(
                name,
                RefreshTokenRecord(
                    familyID: "f", clientID: "c", username: "u", scope: "s", jkt: nil,
                    expiresAt: now.addingTimeInterval(seconds), status: .active),
                now: now)
        }
        try await refresh("live-refresh", expiresIn: 3600)
        // Kept: its family's revocation may still matter.
        try await refresh("recently-expired-refresh", expiresIn: -100)
        try await refresh("expired-refresh", expiresIn: -10_000)
        try await store.revokeSealedToken(jti: "revoked-live", expiresAt: now.addingTimeInterval(60))
        try await store.revokeSealedToken(jti: "revoked-expired", expiresAt: now.addingTimeInterval(-1))
        try await store.recordFailedLogin("stale", maxFailures: 5, lockFor: 300, now: now.addingTimeInterval(-1000))
        try await store.recordFailedLogin("recent", maxFailures: 5, lockFor: 300, now: now.addingTimeInterval(-10))
        for _ in 0..<5 {
            try await store.recordFailedLogin("locked", maxFailures: 5, lockFor: 300, now: now.addingTimeInterval(-400))
        }
        try await store.recordFailedLogin("locked", maxFailures: 1, lockFor: 3000, now: now.addingTimeInterval(-400))

        let result = try await store.deleteExpired(now: now, retention: 3600, lockoutWindow: 300)
        #expect(
            result
                == ServerStore.SweepResult(
                    codes: 1, refreshTokens: 1, accessTokens: 1, lockouts: 1, revokedSealedTokens: 1))

        #expect(try await store.peekCode("live-code") != nil)
        #expect(try await store.peekCode("recently-expired-code") != nil)
        #expect(try await store.peekCode("old-code") == nil)
        #expect(try await store.accessToken("live-access") != nil)
        #expect(try await store.accessToken("expired-access") == nil)
        #expect(try await store.refreshToken("live-refresh") != nil)
        #expect(try await store.refreshToken("recently-expired-refresh") != nil)
        #expect(try await store.refreshToken("expired-refresh") == nil)
        #expect(try await store.isSealedTokenRevoked(jti: "revoked-live", familyID: nil))
        #expect(try await store.lockedUntil("locked", now: now) != nil, "a live lock stays")
        let lockouts = try await store.database.read { db in
            try String.fetchAll(db, sql: "SELECT username FROM lockouts ORDER BY username")
        }
        #expect(lockouts == ["locked", "recent"])
        // A second sweep finds nothing more.
        #expect(try await store.deleteExpired(now: now, retention: 3600, lockoutWindow: 300).total == 0)
    }

    @Test("a file database runs in WAL mode with synchronous=NORMAL, created owner-only")
    func fileDatabaseMode() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("haapi-wal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("server.sqlite").path
        let store = try ServerStore(path: path)
        let (journal, synchronous) = try await store.database.write { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        #expect(journal == "wal")
        #expect(synchronous == 1, "1 is NORMAL")
        for file in ["server.sqlite", "server.sqlite-wal"] {
            let mode =
                (try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file).path)[
                    .posixPermissions] as? NSNumber)?.intValue
            #expect(mode == 0o600, "\(file)")
        }
    }
}
