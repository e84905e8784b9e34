import Foundation

/// What the flow's view model publishes when it ends.
public protocol OAuthModel: Sendable {}

/// The tokens a finished flow produced. Descriptions mask the tokens.
public struct OAuthTokenModel: OAuthModel, CustomStringConvertible {
    /// The token response the flow ended with; the properties below read from it.
    public let tokenResponse: SuccessfulTokenResponse

    init(_ response: SuccessfulTokenResponse) {
        tokenResponse = response
    }

    /// The access token; masked in `description`.
    public var accessToken: String { tokenResponse.accessToken }
    /// The token type, `DPoP` for bound tokens.
    public var tokenType: String? { tokenResponse.tokenType }
    /// Seconds until the access token expires, when the server says.
    public var expiresIn: Int? { tokenResponse.expiresIn }
    /// The refresh token, when the server issued one.
    public var refreshToken: String? { tokenResponse.refreshToken }
    /// The ID token, when `openid` was asked for.
    public var idToken: String? { tokenResponse.idToken }
    /// The scopes granted, when the server says.
    public var scope: String? { tokenResponse.scope }
    /// The token response as sent.
    public var rawJSON: JSONObject { tokenResponse.rawJSON }

    /// The ID token's claims, decoded but not verified (the token came straight from the token endpoint over TLS).
    public var idTokenClaims: JSONObject? {
        guard let idToken, let jws = try? CompactJWS(parsing: idToken) else { return nil }
        return try? jws.payloadObject()
    }

    public var description: String {
        "OAuthTokenModel(tokenType: \(tokenType ?? "-"), expiresIn: \(expiresIn.map(String.init) ?? "-"), scope: \(scope ?? "-"), tokens: *****)"
    }
}

/// Told how a flow ended, on the main actor: a view or view controller conforms to it.
@MainActor
public protocol HaapiFlowResult {
    /// The flow ended with tokens.
    func didReceiveOAuthTokenModel(_ oAuthTokenModel: OAuthTokenModel)
    /// The flow ended without tokens: a `HaapiError`, a `HaapiUIError` (cancelled, timed out) or a problem.
    func didReceiveError(_ error: Error)
}

/// Told how a refresh ended, on the main actor.
@MainActor
public protocol OAuthLifecycleResultListener {
    /// The refresh gave new tokens.
    func refreshTokenSucceeded(_ oAuthTokenModel: OAuthTokenModel)
    /// The refresh failed; the user must sign in again unless the error is retryable.
    func refreshTokenFailed(_ error: Error)
}

/// Token upkeep after a flow, with the application's DPoP key.
public enum OAuthLifecycle {
    /// Refreshes and tells `lifecycleResultListener` on the main actor.
    @MainActor
    public static func refreshToken(
        refreshToken: String, haapiUIKitApplication: HaapiUIKitApplication,
        lifecycleResultListener: any OAuthLifecycleResultListener
    ) {
        Task { @MainActor in
            switch await OAuthLifecycle.refreshToken(refreshToken, haapiUIKitApplication: haapiUIKitApplication) {
            case .success(let model): lifecycleResultListener.refreshTokenSucceeded(model)
            case .failure(let error): lifecycleResultListener.refreshTokenFailed(error)
            }
        }
    }

    /// The `async` form.
    public static func refreshToken(
        _ refreshToken: String, haapiUIKitApplication: HaapiUIKitApplication
    ) async -> Result<OAuthTokenModel, any Error> {
        guard !refreshToken.isEmpty else {
            return .failure(HaapiError.illegalState(message: "the refresh token is empty"))
        }
        let key: any SigningKey
        switch haapiUIKitApplication.key {
        case .success(let loaded): key = loaded
        case .failure(let error): return .failure(error)
        }
        let manager = haapiUIKitApplication.oauthTokenManager(dpopKey: key)
        let bound =
            !(haapiUIKitApplication.haapiUIKitConfiguration.tokenBoundConfiguration is UnboundedTokenConfiguration)
        switch await manager.refreshAccessToken(with: refreshToken, dpop: bound ? Dpop(key: key) : nil) {
        case .successfulToken(let token): return .success(OAuthTokenModel(token))
        case .errorToken(let error):
            return .failure(
                HaapiError.serverError(
                    error: error.error, errorDescription: error.errorDescription ?? "", statusCode: 400))
        case .error(let error): return .failure(error)
        }
    }
}
