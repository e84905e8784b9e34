import Crypto
import Foundation
import GRDB
@_spi(Tooling) import HaapiDriver

/// The server's keys, kept in the database so tokens survive a restart:
/// - an ES256 key that signs ID tokens, client attestation tokens and HAAPI access tokens, published in
///   the JWKS;
/// - a 256-bit secret that seals the access tokens of the OAuth grants (`SealedAccessTokens`).
struct ServerKeys: Sendable {
    let signingKey: SoftwareP256SigningKey
    let keyID: String
    /// Boxed: Xcode 16.0–16.2's CryptoKit does not declare its keys Sendable (`CryptoKeyBox`).
    private let accessTokenKeyBox: CryptoKeyBox<SymmetricKey>
    var accessTokenKey: SymmetricKey { accessTokenKeyBox.value }

    init(signingKey: SoftwareP256SigningKey, keyID: String, accessTokenKey: SymmetricKey) {
        self.signingKey = signingKey
        self.keyID = keyID
        accessTokenKeyBox = CryptoKeyBox(accessTokenKey)
    }

    static func loadOrCreate(in store: ServerStore) throws -> ServerKeys {
        try store.database.write { db in
            try db.execute(
                sql: "CREATE TABLE IF NOT EXISTS server_keys (kid TEXT PRIMARY KEY NOT NULL, private_jwk TEXT NOT NULL)"
            )
            try db.execute(
                sql: "CREATE TABLE IF NOT EXISTS server_secrets (name TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL)")
            var secret = try Data.fetchOne(db, sql: "SELECT value FROM server_secrets WHERE name = 'access-token-key'")
            if secret?.count != 32 {
                secret = Data(SecureRandom.bytes(32))
                try db.execute(
                    sql: "INSERT OR REPLACE INTO server_secrets (name, value) VALUES ('access-token-key', ?)",
                    arguments: [secret])
            }
            let accessTokenKey = SymmetricKey(data: secret ?? Data())
            if let row = try Row.fetchOne(db, sql: "SELECT kid, private_jwk FROM server_keys LIMIT 1") {
                let key = try SoftwareP256SigningKey(jwk: JWK(jsonString: row["private_jwk"]))
                return ServerKeys(signingKey: key, keyID: row["kid"], accessTokenKey: accessTokenKey)
            }
            let key = SoftwareP256SigningKey()
            let kid = String(key.thumbprint.prefix(16))
            try db.execute(
                sql: "INSERT INTO server_keys (kid, private_jwk) VALUES (?, ?)",
                arguments: [kid, key.privateJWK.jsonString])
            return ServerKeys(signingKey: key, keyID: kid, accessTokenKey: accessTokenKey)
        }
    }

    var jwks: JSONValue {
        var members = signingKey.publicJWK.members
        members["kid"] = .string(keyID)
        members["use"] = "sig"
        members["alg"] = "ES256"
        return ["keys": [.object(members)]]
    }

    func sign(claims: JSONObject, type: String = "JWT") throws -> String {
        try JWS.sign(claims: claims, header: ["typ": .string(type), "kid": .string(keyID)], signer: signingKey)
    }

    /// Verifies a JWT this server issued and returns its claims; nil when the signature, type or expiry is wrong.
    func verify(_ token: String, type: String, now: Date) -> JSONObject? {
        guard let jws = try? CompactJWS(parsing: token), jws.header["typ"]?.stringValue == type,
            (try? jws.verify(with: signingKey.publicJWK, allowedAlgorithms: [.es256])) != nil,
            let claims = try? jws.payloadObject(),
            let expiry = claims["exp"]?.numberValue?.intValue, Double(expiry) > now.timeIntervalSince1970
        else { return nil }
        return claims
    }
}
