import Foundation

/// Reading the access tokens this server issued (sealed or stored), for the services that accept them.
protocol AccessTokenReading {
    var accessTokens: SealedAccessTokens { get }
    var store: ServerStore { get }
}

extension AccessTokenReading {
    /// The record of an access token this server issued, sealed or stored, with `revoked` set when it, or
    /// its refresh-token family, was revoked; nil for an unknown token.
    func accessTokenRecord(_ token: String) -> AccessTokenRecord? {
        guard let (record, jti) = accessTokens.open(token) else { return try? store.accessToken(token) }
        let revoked = (try? store.isSealedTokenRevoked(jti: jti, familyID: record.familyID)) ?? true
        return AccessTokenRecord(
            familyID: record.familyID, clientID: record.clientID, username: record.username, scope: record.scope,
            jkt: record.jkt,
            issuedAt: record.issuedAt, expiresAt: record.expiresAt, revoked: revoked)
    }
}
