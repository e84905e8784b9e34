@_spi(Tooling) import HaapiUI

/// How the terminal shows tokens: masked unless asked.
enum TokenSummary {
    static func lines(_ tokens: OAuthTokenModel, showTokens: Bool) -> [String] {
        var lines: [String] = []
        for name in ["token_type", "expires_in", "scope"] {
            if let value = tokens.rawJSON[name] {
                lines.append("  \(name): \(value.stringValue ?? value.serialized())")
            }
        }
        for name in ["access_token", "refresh_token", "id_token"] {
            if let value = tokens.rawJSON[name]?.stringValue {
                lines.append("  \(name): \(showTokens ? value : TokenOutput.mask(value))")
            }
        }
        return lines
    }

    static func claims(_ tokens: OAuthTokenModel) -> [String] {
        guard let claims = tokens.idTokenClaims else { return ["  (no ID token)"] }
        return claims.members.map { "  \($0.key): \($0.value.stringValue ?? $0.value.serialized())" }
    }
}
