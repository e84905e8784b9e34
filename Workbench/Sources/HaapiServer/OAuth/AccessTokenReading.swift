import Foundation

/// Reading the access tokens this server issued (sealed or stored), for the services that accept them.
protocol AccessTokenReading {
    var accessTokens: SealedAccessTokens { get }
    var store: ServerStore { get }
}

extension AccessTokenReading {
    /// The record of an access token this server issued, sealed or stored, with `revoked` set when it, or
    /// its refresh-token family, was revoked; nil for an unknown token. A database failure is a 500.
    func accessTokenRecord(_ token: String) async throws(Rejection) -> AccessTokenRecord? {
        guard let (record, jti) = accessTokens.open(token) else {
            return try await Rejection.unlessStoreFails { try await store.accessToken(token) }
        }
        let revoked = try await Rejection.unlessStoreFails {
            try await store.isSealedTokenRevoked(jti: jti, familyID: record.familyID)
        }
        return AccessTokenRecord(
            familyID: record.familyID, clientID: record.clientID, username: record.username, scope: record.scope,
            jkt: record.jkt,
            issuedAt: record.issuedAt, expiresAt: record.expiresAt, revoked: revoked)
    }
}
