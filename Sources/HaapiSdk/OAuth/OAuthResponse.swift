import Foundation

/// What a token endpoint answered, read: tokens (`SuccessfulTokenResponse`) or an OAuth error
/// (`ErrorTokenResponse`). Code that logs or forwards either takes this.
public protocol OAuthResponse: Sendable {
    /// The response body as sent, for members the typed response does not carry.
    var rawJSON: JSONObject { get }
}

extension SuccessfulTokenResponse: OAuthResponse {}
extension ErrorTokenResponse: OAuthResponse {}

extension TokenResponse {
    /// The response the server sent, tokens or an OAuth error; nil when no usable answer came.
    public var oauthResponse: (any OAuthResponse)? {
        switch self {
        case .successfulToken(let tokens): tokens
        case .errorToken(let error): error
        case .error: nil
        }
    }
}
