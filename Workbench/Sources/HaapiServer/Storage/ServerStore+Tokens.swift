import Foundation
import GRDB

struct AuthorizationCodeRecord: Sendable {
    let clientID: String
    let username: String
    let redirectURI: String
    let scope: String
    /// The flow's DPoP key, when the code is token-bound.
    let jkt: String?
    let codeChallenge: String?
    let nonce: String?
    let authTime: Date
    let expiresAt: Date
}

struct RefreshTokenRecord: Sendable {
    /// `superseded`: a replacement that a reuse within the rotation leeway replaced before it was ever used;
    /// presenting it is a reuse like presenting a rotated token.
    enum Status: String, Sendable { case active, rotated, revoked, superseded }
    let familyID: String
    let clientID: String
    let username: String?
    let scope: String
    let jkt: String?
    let expiresAt: Date
    let status: Status
    /// When the token was first rotated; nil while it is active (and for rows older than migration v5).
    var rotatedAt: Date? = nil
}

struct AccessTokenRecord: Sendable {
    let familyID: String?
    let clientID: String
    let username: String?
    let scope: String
    let jkt: String?
    let issuedAt: Date
    let expiresAt: Date
    let revoked: Bool
}

extension ServerStore {
    func storeCode(_ code: String, _ record: AuthorizationCodeRecord) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO authorization_codes (code_hash, client_id, username, redirect_uri, scope, jkt, code_challenge, nonce, auth_time, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    TokenHash.of(code), record.clientID, record.username, record.redirectURI, record.scope, record.jkt,
                    record.codeChallenge, record.nonce, record.authTime.timeIntervalSince1970,
                    record.expiresAt.timeIntervalSince1970,
                ])
        }
    }

    /// Reads a code without using it up, so a request that fails for a fixable reason (a missing
    /// DPoP nonce) can be retried with the same code.
    func peekCode(_ code: String) async throws -> (record: AuthorizationCodeRecord, used: Bool)? {
        try await database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM authorization_codes WHERE code_hash = ?", arguments: [TokenHash.of(code)]
            ).map { row in
                (
                    AuthorizationCodeRecord(
                        clientID: row["client_id"], username: row["username"], redirectURI: row["redirect_uri"],
                        scope: row["scope"],
                        jkt: row["jkt"], codeChallenge: row["code_challenge"], nonce: row["nonce"],
                        authTime: Date(timeIntervalSince1970: row["auth_time"]),
                        expiresAt: Date(timeIntervalSince1970: row["expires_at"])),
                    (row["used"] as Int) != 0
                )
            }
        }
    }

    enum CodeRedemption {
        case unknown
        case alreadyUsed(AuthorizationCodeRecord)
        case fresh(AuthorizationCodeRecord)
    }

    /// Marks a code used in the same transaction that reads it, so two concurrent redemptions cannot both
    /// succeed, and records the token family its redemption starts. A second redemption is an attack on the
    /// code (RFC 6749 §4.1.2, RFC 9700 §4.5): it revokes that family, refresh and access tokens alike.
    func redeemCode(_ code: String, family: String) async throws -> CodeRedemption {
        try await database.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM authorization_codes WHERE code_hash = ?", arguments: [TokenHash.of(code)])
            else {
                return .unknown
            }
            let record = AuthorizationCodeRecord(
                clientID: row["client_id"], username: row["username"], redirectURI: row["redirect_uri"],
                scope: row["scope"],
                jkt: row["jkt"], codeChallenge: row["code_challenge"], nonce: row["nonce"],
                authTime: Date(timeIntervalSince1970: row["auth_time"]),
                expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
            if (row["used"] as Int) != 0 {
                if let issued: String = row["family_id"] { try Self.revokeFamily(db, issued) }
                return .alreadyUsed(record)
            }
            try db.execute(
                sql: "UPDATE authorization_codes SET used = 1, family_id = ? WHERE code_hash = ?",
                arguments: [family, TokenHash.of(code)])
            return .fresh(record)
        }
    }

    func storeRefreshToken(_ token: String, _ record: RefreshTokenRecord, now: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO refresh_tokens (token_hash, family_id, client_id, username, scope, jkt, expires_at, status, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    TokenHash.of(token), record.familyID, record.clientID, record.username, record.scope, record.jkt,
                    record.expiresAt.timeIntervalSince1970, record.status.rawValue, now.timeIntervalSince1970,
                ])
        }
    }

    func refreshToken(_ token: String) async throws -> RefreshTokenRecord? {
        try await database.read { db in try Self.refreshRecord(db, hash: TokenHash.of(token)) }
    }

    private static func refreshRecord(_ db: Database, hash: String) throws -> RefreshTokenRecord? {
        try Row.fetchOne(db, sql: "SELECT * FROM refresh_tokens WHERE token_hash = ?", arguments: [hash]).map {
            RefreshTokenRecord(
                familyID: $0["family_id"], clientID: $0["client_id"], username: $0["username"], scope: $0["scope"],
                jkt: $0["jkt"],
                expiresAt: Date(timeIntervalSince1970: $0["expires_at"]),
                status: RefreshTokenRecord.Status(rawValue: $0["status"]) ?? .revoked,
                rotatedAt: ($0["rotated_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
        }
    }

    enum Rotation {
        case unknown
        case reused(RefreshTokenRecord)
        case inactive(RefreshTokenRecord)
        case rotated(RefreshTokenRecord)
    }

    /// Retires `token` and stores `replacement` in its family, atomically. Presenting a token that was
    /// already rotated is theft or a replay: the whole family (and its access tokens) is revoked, unless it
    /// comes within `reuseGrace` seconds of the first rotation and its replacement was never used. That
    /// leeway is for a client that was killed between the server's answer and its own write of the new
    /// token: it still holds only the old one. Within it the token is rotated again and the unused earlier
    /// replacement is superseded, so the family keeps one live branch (RFC 9700 §4.14.2): whoever later
    /// presents the superseded one (the other holder of the old token) revokes the family. The leeway never
    /// restarts, and it never revives a revoked or expired token.
    func rotateRefreshToken(
        _ token: String, replacement: String, expiresAt: Date, reuseGrace: TimeInterval, now: Date
    ) async throws -> Rotation {
        try await database.write { db in
            let hash = TokenHash.of(token)
            guard let record = try Self.refreshRecord(db, hash: hash) else { return .unknown }
            switch record.status {
            case .rotated:
                let earlier: String? = try String.fetchOne(
                    db, sql: "SELECT replaced_by FROM refresh_tokens WHERE token_hash = ?", arguments: [hash])
                if let rotatedAt = record.rotatedAt, now.timeIntervalSince(rotatedAt) <= reuseGrace,
                    record.expiresAt > now, let earlier,
                    try Self.refreshRecord(db, hash: earlier)?.status == .active
                {
                    try db.execute(
                        sql: "UPDATE refresh_tokens SET status = 'superseded' WHERE token_hash = ?",
                        arguments: [earlier])
                    try Self.insertReplacement(db, replacement, of: record, expiresAt: expiresAt, now: now)
                    try db.execute(
                        sql: "UPDATE refresh_tokens SET replaced_by = ? WHERE token_hash = ?",
                        arguments: [TokenHash.of(replacement), hash])
                    return .rotated(record)
                }
                try Self.revokeFamily(db, record.familyID)
                return .reused(record)
            case .superseded:
                try Self.revokeFamily(db, record.familyID)
                return .reused(record)
            case .revoked:
                return .inactive(record)
            case .active:
                guard record.expiresAt > now else { return .inactive(record) }
                try db.execute(
                    sql:
                        "UPDATE refresh_tokens SET status = 'rotated', rotated_at = ?, replaced_by = ? WHERE token_hash = ?",
                    arguments: [now.timeIntervalSince1970, TokenHash.of(replacement), hash])
                try Self.insertReplacement(db, replacement, of: record, expiresAt: expiresAt, now: now)
                return .rotated(record)
            }
        }
    }

    private static func insertReplacement(
        _ db: Database, _ replacement: String, of record: RefreshTokenRecord, expiresAt: Date, now: Date
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO refresh_tokens (token_hash, family_id, client_id, username, scope, jkt, expires_at, status, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?)
                """,
            arguments: [
                TokenHash.of(replacement), record.familyID, record.clientID, record.username, record.scope, record.jkt,
                expiresAt.timeIntervalSince1970, now.timeIntervalSince1970,
            ])
    }

    private static func revokeFamily(_ db: Database, _ familyID: String) throws {
        try db.execute(sql: "UPDATE refresh_tokens SET status = 'revoked' WHERE family_id = ?", arguments: [familyID])
        try db.execute(sql: "UPDATE access_tokens SET revoked = 1 WHERE family_id = ?", arguments: [familyID])
    }

    /// Whether the family was revoked (reuse of a rotated refresh token or of a code, or RFC 7009 revocation).
    func isFamilyRevoked(_ familyID: String) async throws -> Bool {
        try await database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT 1 FROM refresh_tokens WHERE family_id = ? AND status = 'revoked' LIMIT 1",
                arguments: [familyID]) != nil
        }
    }

    func storeAccessToken(_ token: String, _ record: AccessTokenRecord) async throws {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO access_tokens (token_hash, family_id, client_id, username, scope, jkt, issued_at, expires_at, revoked)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)
                    """,
                arguments: [
                    TokenHash.of(token), record.familyID, record.clientID, record.username, record.scope, record.jkt,
                    record.issuedAt.timeIntervalSince1970, record.expiresAt.timeIntervalSince1970,
                ])
        }
    }

    func accessToken(_ token: String) async throws -> AccessTokenRecord? {
        try await database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM access_tokens WHERE token_hash = ?", arguments: [TokenHash.of(token)]
            ).map {
                AccessTokenRecord(
                    familyID: $0["family_id"], clientID: $0["client_id"], username: $0["username"], scope: $0["scope"],
                    jkt: $0["jkt"],
                    issuedAt: Date(timeIntervalSince1970: $0["issued_at"]),
                    expiresAt: Date(timeIntervalSince1970: $0["expires_at"]),
                    revoked: ($0["revoked"] as Int) != 0)
            }
        }
    }

    /// Whether a sealed access token was revoked, itself or through its refresh-token family.
    func isSealedTokenRevoked(jti: String, familyID: String?) async throws -> Bool {
        try await database.read { db in
            if try Row.fetchOne(db, sql: "SELECT 1 FROM revoked_access_tokens WHERE jti = ?", arguments: [jti]) != nil {
                return true
            }
            guard let familyID else { return false }
            return try Row.fetchOne(
                db, sql: "SELECT 1 FROM refresh_tokens WHERE family_id = ? AND status = 'revoked' LIMIT 1",
                arguments: [familyID]) != nil
        }
    }

    /// Revokes one sealed access token until it expires (RFC 7009).
    func revokeSealedToken(jti: String, expiresAt: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR IGNORE INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?)",
                arguments: [jti, expiresAt.timeIntervalSince1970])
        }
    }

    /// RFC 7009: revoking a refresh token revokes its family; revoking an access token revokes that token.
    /// Returns false when the token is unknown or belongs to another client (which is not an error on the wire).
    @discardableResult
    func revoke(_ token: String, clientID: String) async throws -> Bool {
        try await database.write { db in
            let hash = TokenHash.of(token)
            if let record = try Self.refreshRecord(db, hash: hash), record.clientID == clientID {
                try Self.revokeFamily(db, record.familyID)
                return true
            }
            if let owner = try String.fetchOne(
                db, sql: "SELECT client_id FROM access_tokens WHERE token_hash = ?", arguments: [hash]),
                owner == clientID
            {
                try db.execute(sql: "UPDATE access_tokens SET revoked = 1 WHERE token_hash = ?", arguments: [hash])
                return true
            }
            return false
        }
    }
}
