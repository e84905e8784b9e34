import Foundation
import GRDB

/// A registered passkey: the COSE public key (as encoded by the authenticator) and its signature counter.
struct StoredPasskey: Sendable {
    let credentialId: String
    let username: String
    let userHandle: Data
    let publicKey: Data
    let signCount: UInt32
}

extension ServerStore {
    func insertPasskey(_ passkey: StoredPasskey, now: Date) throws {
        try database.write { db in
            try db.execute(sql: """
                INSERT INTO passkey_credentials (credential_id, username, public_key, sign_count, created_at, user_handle) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [passkey.credentialId, passkey.username, passkey.publicKey, Int(passkey.signCount), now.timeIntervalSince1970, passkey.userHandle])
        }
    }

    func passkey(id: String) throws -> StoredPasskey? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM passkey_credentials WHERE credential_id = ?", arguments: [id]).map(Self.passkey(from:))
        }
    }

    func passkeys(username: String) throws -> [StoredPasskey] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM passkey_credentials WHERE username = ?", arguments: [username]).map(Self.passkey(from:))
        }
    }

    /// Stores the new counter only if it grew, so two racing sign-ins cannot both pass with one counter value.
    func advancePasskeyCounter(id: String, from old: UInt32, to new: UInt32) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "UPDATE passkey_credentials SET sign_count = ? WHERE credential_id = ? AND sign_count = ?",
                           arguments: [Int(new), id, Int(old)])
            return db.changesCount == 1
        }
    }

    private static func passkey(from row: Row) -> StoredPasskey {
        let count: Int = row["sign_count"]
        return StoredPasskey(credentialId: row["credential_id"], username: row["username"], userHandle: row["user_handle"] ?? Data(),
                             publicKey: row["public_key"], signCount: UInt32(clamping: count))
    }
}
