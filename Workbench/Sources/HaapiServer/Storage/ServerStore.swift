import Foundation
import GRDB

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The server's persistent state in SQLite: users, lockouts, dynamic clients, authorization codes,
/// refresh-token families, access tokens and passkey credentials. Tokens and codes are stored hashed.
public final class ServerStore: Sendable {
    let database: any DatabaseWriter

    /// Opens (or creates) the database at `path`; in memory when `path` is nil.
    ///
    /// A file is opened as a pool in WAL mode with `synchronous=NORMAL`: reads run beside the one writer,
    /// and a commit appends to the log without waiting for the disk (the log is synced at checkpoints).
    /// A killed process loses nothing it committed; a power cut may lose the last transactions.
    public init(path: String?) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // Each connection keeps at most 1 MiB of pages, so a busy pool stays small in memory.
            try db.execute(sql: "PRAGMA cache_size = -1024")
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        }
        if let path {
            // The file holds password hashes and the server's signing key: owner only, from its first byte
            // (SQLite gives the -wal and -shm files the database file's mode).
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            chmod(path, 0o600)
            configuration.maximumReaderCount = 4
            database = try DatabasePool(path: path, configuration: configuration)
        } else {
            database = try DatabaseQueue(configuration: configuration)
        }
        try Self.migrator.migrate(database)
    }

    /// Closes the database: a file's write-ahead log is checkpointed into it and removed. Every later call fails.
    public func close() throws {
        try database.close()
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE users (
                      username TEXT PRIMARY KEY NOT NULL, password_hash TEXT NOT NULL, email TEXT, name TEXT, created_at REAL NOT NULL);
                    CREATE TABLE lockouts (
                      username TEXT PRIMARY KEY NOT NULL, failures INTEGER NOT NULL, locked_until REAL);
                    CREATE TABLE dynamic_clients (
                      id TEXT PRIMARY KEY NOT NULL, secret_hash TEXT NOT NULL, template_id TEXT NOT NULL, created_at REAL NOT NULL);
                    CREATE TABLE authorization_codes (
                      code_hash TEXT PRIMARY KEY NOT NULL, client_id TEXT NOT NULL, username TEXT NOT NULL, redirect_uri TEXT NOT NULL,
                      scope TEXT NOT NULL, jkt TEXT, code_challenge TEXT, nonce TEXT, auth_time REAL NOT NULL,
                      expires_at REAL NOT NULL, used INTEGER NOT NULL DEFAULT 0);
                    CREATE TABLE refresh_tokens (
                      token_hash TEXT PRIMARY KEY NOT NULL, family_id TEXT NOT NULL, client_id TEXT NOT NULL, username TEXT,
                      scope TEXT NOT NULL, jkt TEXT, expires_at REAL NOT NULL, status TEXT NOT NULL, created_at REAL NOT NULL);
                    CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
                    CREATE TABLE access_tokens (
                      token_hash TEXT PRIMARY KEY NOT NULL, family_id TEXT, client_id TEXT NOT NULL, username TEXT, scope TEXT NOT NULL,
                      jkt TEXT, issued_at REAL NOT NULL, expires_at REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
                    CREATE INDEX access_tokens_family ON access_tokens(family_id);
                    CREATE TABLE passkey_credentials (
                      credential_id TEXT PRIMARY KEY NOT NULL, username TEXT NOT NULL, public_key BLOB NOT NULL,
                      sign_count INTEGER NOT NULL DEFAULT 0, created_at REAL NOT NULL);
                    """)
        }
        migrator.registerMigration("v2-passkey-user-handle") { db in
            // The web-app RP maps a discoverable sign-in's userHandle back to the account.
            try db.execute(sql: "ALTER TABLE passkey_credentials ADD COLUMN user_handle BLOB")
        }
        migrator.registerMigration("v3-code-family") { db in
            // A code redeemed twice revokes what its first redemption issued (RFC 9700 §4.5): remember the family.
            try db.execute(sql: "ALTER TABLE authorization_codes ADD COLUMN family_id TEXT")
            try db.execute(sql: "CREATE INDEX users_email ON users(lower(email))")
        }
        migrator.registerMigration("v4-lockout-window") { db in
            // Failures count within one lockout period of each other, like the in-memory counters of
            // unknown names: the two must answer alike (docs/SECURITY.md).
            try db.execute(sql: "ALTER TABLE lockouts ADD COLUMN last_failure REAL")
        }
        migrator.registerMigration("v5-refresh-rotated-at") { db in
            // The rotation leeway counts from the moment a refresh token was first rotated.
            try db.execute(sql: "ALTER TABLE refresh_tokens ADD COLUMN rotated_at REAL")
        }
        migrator.registerMigration("v6-revoked-sealed-tokens") { db in
            // Sealed access tokens are not stored; the ones revoked before they expire are (RFC 7009).
            try db.execute(
                sql: "CREATE TABLE revoked_access_tokens (jti TEXT PRIMARY KEY NOT NULL, expires_at REAL NOT NULL)")
        }
        migrator.registerMigration("v7-refresh-replaced-by") { db in
            // A rotated token names its live replacement, so a reuse within the leeway can retire it: one
            // live branch per family (RFC 9700 §4.14.2).
            try db.execute(sql: "ALTER TABLE refresh_tokens ADD COLUMN replaced_by TEXT")
        }
        migrator.registerMigration("v8-app-attest-keys") { db in
            // App Attest keys whose attestation was verified, and the last assertion counter of each.
            try db.execute(
                sql: """
                    CREATE TABLE app_attest_keys (
                      key_id TEXT PRIMARY KEY NOT NULL, public_key BLOB NOT NULL, app_id TEXT NOT NULL,
                      sign_count INTEGER NOT NULL, created_at REAL NOT NULL)
                    """)
        }
        migrator.registerMigration("v9-app-attest-environment") { db in
            // The App Attest environment a key was attested in: after a switch to production, keys attested
            // in development are refused (rows from before this column have none, and are refused too).
            try db.execute(sql: "ALTER TABLE app_attest_keys ADD COLUMN environment TEXT")
        }
        return migrator
    }

    /// The names of the tables, for tests and diagnostics.
    public func tableNames() async throws -> [String] {
        try await database.read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'grdb_%' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        }
    }
}

// MARK: - Users and lockouts

struct StoredUser: Sendable {
    let username: String
    let passwordHash: String
    let email: String?
    let name: String?
}

extension ServerStore {
    func user(named username: String) async throws -> StoredUser? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE username = ?", arguments: [username]).map {
                StoredUser(
                    username: $0["username"], passwordHash: $0["password_hash"], email: $0["email"], name: $0["name"])
            }
        }
    }

    func user(withEmail email: String) async throws -> StoredUser? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE lower(email) = lower(?)", arguments: [email]).map {
                StoredUser(
                    username: $0["username"], passwordHash: $0["password_hash"], email: $0["email"], name: $0["name"])
            }
        }
    }

    /// Whether `identifier` is any account's username or e-mail address (compared without case).
    func accountExists(identifier: String) async throws -> Bool {
        try await database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT 1 FROM users WHERE lower(username) = lower(?) OR lower(email) = lower(?)",
                arguments: [identifier, identifier]) != nil
        }
    }

    /// Why an account could not be created.
    enum NewAccountConflict: Error, Equatable {
        /// The username is another account's username or e-mail address (compared without case).
        case usernameTaken
        /// The e-mail address is another account's e-mail address or username (compared without case).
        case emailTaken
    }

    /// Adds a user unless the name or the e-mail address would make a sign-in identifier ambiguous.
    /// Usernames and e-mail addresses share one namespace, compared without case: an authenticator that
    /// accepts "username or e-mail" finds at most one account.
    func insertUser(_ user: StoredUser, now: Date) async throws -> Result<Void, NewAccountConflict> {
        try await database.write { db in
            if let conflict = try Self.conflict(db, for: user) { return .failure(conflict) }
            try Self.insert(db, user, now: now)
            return .success(())
        }
    }

    /// Creates a passkey-only account and its first credential in one transaction, so a sign-up either
    /// owns a new account or changes nothing.
    func insertUser(
        _ user: StoredUser, withPasskey passkey: StoredPasskey, now: Date
    ) async throws -> Result<Void, NewAccountConflict> {
        try await database.write { db in
            if let conflict = try Self.conflict(db, for: user) { return .failure(conflict) }
            try Self.insert(db, user, now: now)
            try Self.insertPasskey(db, passkey, now: now)
            return .success(())
        }
    }

    /// Adds a configured user at startup unless an account of that name exists; `passwordHash` is asked
    /// only then (hashing is slow by design). Synchronous: it runs in the server's initializer, before any
    /// request is served.
    func seedUser(
        username: String, email: String?, name: String?, now: Date, passwordHash: () throws -> String
    ) throws -> NewAccountConflict? {
        try database.write { db in
            guard try Row.fetchOne(db, sql: "SELECT 1 FROM users WHERE username = ?", arguments: [username]) == nil
            else { return nil }
            let user = StoredUser(username: username, passwordHash: try passwordHash(), email: email, name: name)
            if let conflict = try Self.conflict(db, for: user) { return conflict }
            try Self.insert(db, user, now: now)
            return nil
        }
    }

    private static func conflict(_ db: Database, for user: StoredUser) throws -> NewAccountConflict? {
        let identifiers = "SELECT 1 FROM users WHERE lower(username) = lower(?) OR lower(email) = lower(?)"
        if try Row.fetchOne(db, sql: identifiers, arguments: [user.username, user.username]) != nil {
            return .usernameTaken
        }
        if let email = user.email, try Row.fetchOne(db, sql: identifiers, arguments: [email, email]) != nil {
            return .emailTaken
        }
        return nil
    }

    private static func insert(_ db: Database, _ user: StoredUser, now: Date) throws {
        // Credentials left under this name by an earlier database (before sign-ups created accounts) belong
        // to whoever registered them, not to the new account: they go (pre-hijacking, WebAuthn L3 §13.4.7).
        try db.execute(sql: "DELETE FROM passkey_credentials WHERE username = ?", arguments: [user.username])
        try db.execute(
            sql: "INSERT INTO users (username, password_hash, email, name, created_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [user.username, user.passwordHash, user.email, user.name, now.timeIntervalSince1970])
    }

    /// When the account is locked, the time it unlocks.
    func lockedUntil(_ username: String, now: Date) async throws -> Date? {
        try await database.read { db in
            guard
                let until = try Double.fetchOne(
                    db, sql: "SELECT locked_until FROM lockouts WHERE username = ?", arguments: [username]),
                until > now.timeIntervalSince1970
            else { return nil }
            return Date(timeIntervalSince1970: until)
        }
    }

    /// Counts a failed login; locks the account once `maxFailures` is reached. Returns the failure count.
    /// A failure more than `seconds` after the previous one starts a new count.
    @discardableResult
    func recordFailedLogin(_ username: String, maxFailures: Int, lockFor seconds: Int, now: Date) async throws -> Int {
        try await database.write { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT failures, last_failure FROM lockouts WHERE username = ?", arguments: [username])
            let previous: Int = row?["failures"] ?? 0
            let last: Double? = row?["last_failure"]
            let failures = (last.map { $0 > now.timeIntervalSince1970 - Double(seconds) } ?? false) ? previous + 1 : 1
            let lockedUntil: Double? = failures >= maxFailures ? now.timeIntervalSince1970 + Double(seconds) : nil
            try db.execute(
                sql: """
                    INSERT INTO lockouts (username, failures, locked_until, last_failure) VALUES (?, ?, ?, ?)
                    ON CONFLICT(username) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until,
                      last_failure = excluded.last_failure
                    """, arguments: [username, failures, lockedUntil, now.timeIntervalSince1970])
            return failures
        }
    }

    func clearFailedLogins(_ username: String) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM lockouts WHERE username = ?", arguments: [username])
        }
    }
}

// MARK: - Dynamic clients

struct DynamicClient: Sendable {
    let id: String
    let secretHash: String
    let templateID: String
}

extension ServerStore {
    func insertDynamicClient(_ client: DynamicClient, now: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT INTO dynamic_clients (id, secret_hash, template_id, created_at) VALUES (?, ?, ?, ?)",
                arguments: [client.id, client.secretHash, client.templateID, now.timeIntervalSince1970])
        }
    }

    func dynamicClient(id: String) async throws -> DynamicClient? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM dynamic_clients WHERE id = ?", arguments: [id]).map {
                DynamicClient(id: $0["id"], secretHash: $0["secret_hash"], templateID: $0["template_id"])
            }
        }
    }
}
