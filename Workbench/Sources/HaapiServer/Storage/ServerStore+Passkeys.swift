import Foundation
import GRDB

/// A registered passkey: the COSE public key (as encoded by the authenticator) and its signature counter.
struct StoredPasskey: Sendable {
    let credentialID: String
    let username: String
    let userHandle: Data
    let publicKey: Data
    let signCount: UInt32
}

extension ServerStore {
    /// Adds a credential to an existing account; false when the account does not exist.
    func insertPasskey(_ passkey: StoredPasskey, now: Date) async throws -> Bool {
        try await database.write { db in
            guard
                try Row.fetchOne(db, sql: "SELECT 1 FROM users WHERE username = ?", arguments: [passkey.username])
                    != nil
            else { return false }
            try Self.insertPasskey(db, passkey, now: now)
            return true
        }
    }

    static func insertPasskey(_ db: Database, _ passkey: StoredPasskey, now: Date) throws {
        try db.execute(
            sql: """
                INSERT INTO passkey_credentials (credential_id, username, public_key, sign_count, created_at, user_handle) VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                passkey.credentialID, passkey.username, passkey.publicKey, Int(passkey.signCount),
                now.timeIntervalSince1970, passkey.userHandle,
            ])
    }

    /// Whether `passkey` may sign in to its account: the account exists and is no younger than the
    /// credential. A credential stored before its account existed was not registered by the account's owner.
    func passkeyOwnsAccount(_ passkey: StoredPasskey) async throws -> Bool {
        try await database.read { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT u.created_at <= p.created_at FROM passkey_credentials p JOIN users u ON u.username = p.username
                    WHERE p.credential_id = ?
                    """, arguments: [passkey.credentialID]) ?? false
        }
    }

    func passkey(id: String) async throws -> StoredPasskey? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM passkey_credentials WHERE credential_id = ?", arguments: [id]).map(
                Self.passkey(from:))
        }
    }

    func passkeys(username: String) async throws -> [StoredPasskey] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM passkey_credentials WHERE username = ?", arguments: [username])
                .map(Self.passkey(from:))
        }
    }

    /// Stores the new counter only if it grew, so two racing sign-ins cannot both pass with one counter value.
    func advancePasskeyCounter(id: String, from old: UInt32, to new: UInt32) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE passkey_credentials SET sign_count = ? WHERE credential_id = ? AND sign_count = ?",
                arguments: [Int(new), id, Int(old)])
            return db.changesCount == 1
        }
    }

    private static func passkey(from row: Row) -> StoredPasskey {
        let count: Int = row["sign_count"]
        return StoredPasskey(
            credentialID: row["credential_id"], username: row["username"], userHandle: row["user_handle"] ?? Data(),
            publicKey: row["public_key"], signCount: UInt32(clamping: count))
    }
}
