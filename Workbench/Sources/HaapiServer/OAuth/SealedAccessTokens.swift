import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver

/// Access tokens of the OAuth grants (client credentials, code, refresh) that carry their own record:
/// `at1.<base64url JSON claims>.<base64url HMAC-SHA-256>` under a server secret kept in the database.
///
/// Issuing one writes nothing, so the token endpoint does no database write for a client-credentials
/// grant and memory does not grow with every token issued; a token is checked by its MAC, its expiry,
/// and two small revocation tables written only when something is revoked (RFC 7009 revocation of the
/// token, or of its refresh-token family). The claims are authenticated, not encrypted: whoever holds a
/// token can read its client, subject and scope (its own), but cannot change them. Clients treat it as
/// an opaque string, as before.
/// HAAPI access tokens stay JWTs stored by hash (one per login, checked on every HAAPI request).
struct SealedAccessTokens: Sendable {
    static let prefix = "at1."
    /// Boxed: Xcode 16.0–16.2's CryptoKit does not declare its keys Sendable (`CryptoKeyBox`).
    private let box: CryptoKeyBox<SymmetricKey>
    private var key: SymmetricKey { box.value }

    init(key: SymmetricKey) {
        box = CryptoKeyBox(key)
    }

    /// A token for `record`; `jti` names it in the revocation table.
    func seal(_ record: AccessTokenRecord, jti: String) -> String {
        // The claims object written member by member: the same JSON a `JSONObject` would give, without
        // building one (its members and their lookups cost more than the writing).
        var json: [UInt8] = []
        json.reserveCapacity(320)
        json.append(UInt8(ascii: "{"))
        func member(_ name: String, _ value: JSONValue) {
            if json.count > 1 { json.append(UInt8(ascii: ",")) }
            JSONValue.string(name).write(to: &json)
            json.append(UInt8(ascii: ":"))
            value.write(to: &json)
        }
        member("jti", .string(jti))
        member("cid", .string(record.clientID))
        member("scope", .string(record.scope))
        member("iat", .number(JSONNumber(Int(record.issuedAt.timeIntervalSince1970))))
        member("exp", .number(JSONNumber(Int(record.expiresAt.timeIntervalSince1970))))
        if let username = record.username { member("sub", .string(username)) }
        if let jkt = record.jkt { member("jkt", .string(jkt)) }
        if let family = record.familyID { member("fam", .string(family)) }
        json.append(UInt8(ascii: "}"))
        // Assembled as bytes: the claims, their base64url form and the MAC never become strings of their own.
        var token: [UInt8] = []
        token.reserveCapacity(Self.prefix.utf8.count + json.count * 4 / 3 + 48)
        token.append(contentsOf: Self.prefix.utf8)
        Base64URL.append(json, to: &token)
        // swift-crypto's HMAC, keyed per token: absorbing the key each time costs two SHA-256 blocks.
        var mac = HMAC<SHA256>(key: key)
        token.withUnsafeBytes { mac.update(data: $0) }
        let code = mac.finalize()
        token.append(UInt8(ascii: "."))
        code.withUnsafeBytes { Base64URL.append($0, to: &token) }
        return String(decoding: token, as: UTF8.self)
    }

    /// The record and `jti` of a token this server sealed; nil for anything else (other tokens, forgeries,
    /// tampering). Expiry and revocation are the caller's to check.
    func open(_ token: String) -> (record: AccessTokenRecord, jti: String)? {
        let claimsStart = token.utf8.index(
            token.utf8.startIndex, offsetBy: Self.prefix.utf8.count, limitedBy: token.utf8.endIndex)
        guard token.utf8.count <= 4096, token.hasPrefix(Self.prefix), let claimsStart,
            let dot = token.utf8.lastIndex(of: UInt8(ascii: ".")), dot >= claimsStart,
            let mac = Base64URL.decode(utf8: token.utf8[token.utf8.index(after: dot)...]),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(token.utf8[..<dot]), using: key),
            let json = Base64URL.decode(utf8: token.utf8[claimsStart..<dot]),
            case .object(let claims)? = try? JSONParser(limits: .init(maxBytes: 4096, maxDepth: 2)).parse(Data(json)),
            let jti = claims["jti"]?.stringValue, let clientID = claims["cid"]?.stringValue,
            let scope = claims["scope"]?.stringValue,
            let issued = claims["iat"]?.numberValue?.intValue, let expires = claims["exp"]?.numberValue?.intValue
        else { return nil }
        let record = AccessTokenRecord(
            familyID: claims["fam"]?.stringValue, clientID: clientID, username: claims["sub"]?.stringValue,
            scope: scope,
            jkt: claims["jkt"]?.stringValue, issuedAt: Date(timeIntervalSince1970: TimeInterval(issued)),
            expiresAt: Date(timeIntervalSince1970: TimeInterval(expires)), revoked: false)
        return (record, jti)
    }
}
