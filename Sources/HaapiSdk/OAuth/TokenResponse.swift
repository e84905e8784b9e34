import Foundation

/// A successful token response (RFC 6749 §5.1).
public struct SuccessfulTokenResponse: Sendable, CustomStringConvertible {
    /// The access token; never logged, and masked in `description`.
    public let accessToken: String
    /// The token type, `DPoP` for bound tokens.
    public let tokenType: String?
    /// Seconds until the access token expires, when the server says.
    public let expiresIn: Int?
    /// The refresh token to keep. When a refresh response carries none, this is the one that was used,
    /// because the server left it valid.
    public let refreshToken: String?
    /// The ID token, when `openid` was asked for.
    public let idToken: String?
    /// The scopes granted, when the server says.
    public let scope: String?
    /// The response as sent, for members not modelled here.
    public let rawJSON: JSONObject

    init(_ object: JSONObject, keepingRefreshToken previous: String? = nil) throws(HaapiError) {
        guard let accessToken = object["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw .communication(message: "the token response has no access_token", cause: nil)
        }
        self.accessToken = accessToken
        tokenType = object["token_type"]?.stringValue
        expiresIn = object["expires_in"]?.numberValue?.intValue
        refreshToken = object["refresh_token"]?.stringValue ?? previous
        idToken = object["id_token"]?.stringValue
        scope = object["scope"]?.stringValue
        rawJSON = object
    }

    /// Tokens are masked: a response printed in a log shows their presence, not their value.
    public var description: String {
        let parts = [
            "accessToken: *****", tokenType.map { "tokenType: \($0)" }, expiresIn.map { "expiresIn: \($0)" },
            refreshToken.map { _ in "refreshToken: *****" }, idToken.map { _ in "idToken: *****" },
            scope.map { "scope: \($0)" },
        ]
        return "SuccessfulTokenResponse(" + parts.compactMap { $0 }.joined(separator: ", ") + ")"
    }
}

/// An OAuth error response (RFC 6749 §5.2).
public struct ErrorTokenResponse: Sendable, Equatable {
    /// The OAuth error code (`invalid_grant`, `invalid_dpop_proof`, …).
    public let error: String
    /// The server's explanation, when it gives one.
    public let errorDescription: String?
    /// A page about the error, when the server gives one.
    public let errorUri: String?
    /// The response as sent, for members not modelled here.
    public let rawJSON: JSONObject

    init?(_ object: JSONObject) {
        guard let error = object["error"]?.stringValue else { return nil }
        self.error = error
        rawJSON = object
        errorDescription = object["error_description"]?.stringValue
        errorUri = object["error_uri"]?.stringValue
    }
}

/// What a token request gave: tokens, an OAuth error, or no usable answer.
public enum TokenResponse: Sendable {
    /// Tokens.
    case successfulToken(SuccessfulTokenResponse)
    /// An OAuth error.
    case errorToken(ErrorTokenResponse)
    /// No usable answer (a `HaapiError`).
    case error(any Error)
}

/// What a revocation request gave.
public enum TokenRevocationResponse: Sendable {
    /// The token is revoked (or was not valid, which RFC 7009 treats the same).
    case success
    /// An OAuth error.
    case errorToken(ErrorTokenResponse)
    /// No usable answer (a `HaapiError`).
    case error(any Error)
}

/// Completion handlers run on the main actor, like `HaapiCompletionHandler`.
public typealias OAuthCompletion = @MainActor @Sendable (TokenResponse) -> Void
/// Called on the main actor with the revocation's outcome.
public typealias OAuthRevocationCompletion = @MainActor @Sendable (TokenRevocationResponse) -> Void
