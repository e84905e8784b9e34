import Foundation
import GRDB

extension ServerStore {
    /// Records a key whose attestation was verified. False when the key id is already known: a key is
    /// attested once, and then asserts.
    func insertAppAttestKey(_ key: AppAttestKey, now: Date) async throws -> Bool {
        try await database.write { db in
            guard
                try Row.fetchOne(db, sql: "SELECT 1 FROM app_attest_keys WHERE key_id = ?", arguments: [key.keyID])
                    == nil
            else { return false }
            try db.execute(
                sql: """
                    INSERT INTO app_attest_keys (key_id, public_key, app_id, sign_count, created_at, environment)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    key.keyID, key.publicKey, key.appID, Int(key.signCount), now.timeIntervalSince1970,
                    key.environment?.rawValue,
                ])
            return true
        }
    }

    /// The attested key with this id, or nil.
    func appAttestKey(_ keyID: String) async throws -> AppAttestKey? {
        try await database.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT public_key, app_id, sign_count, environment FROM app_attest_keys WHERE key_id = ?",
                    arguments: [keyID])
            else { return nil }
            let count: Int = row["sign_count"]
            return AppAttestKey(
                keyID: keyID, publicKey: row["public_key"], appID: row["app_id"],
                signCount: UInt32(clamping: count),
                environment: (row["environment"] as String?).flatMap(AppAttestSettings.Environment.init(rawValue:)))
        }
    }

    /// Moves the key's counter to `counter` if it is still below it; false when another assertion got
    /// there first (two requests with one counter: only one is accepted).
    func advanceAppAttestCounter(_ keyID: String, to counter: UInt32) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE app_attest_keys SET sign_count = ? WHERE key_id = ? AND sign_count < ?",
                arguments: [Int(counter), keyID, Int(counter)])
            return db.changesCount == 1
        }
    }
}
