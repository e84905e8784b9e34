import ArgumentParser
import Foundation
import HaapiSdk

/// `haapi token exchange|refresh|revoke`: plain OAuth against any server, through `OAuthTokenManager`.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Exchange a code, refresh or revoke tokens at any OAuth server (DPoP when --dpop-key is given).",
        subcommands: [Exchange.self, Refresh.self, Revoke.self])

    struct Common: ParsableArguments {
        @Option(name: .long, help: "The token endpoint URL.")
        var tokenEndpoint: String

        @OptionGroup var client: ClientOptions

        @Option(name: .long, help: "Private EC P-256 JWK file for DPoP proofs (created mode 0600 if missing). Without it, no DPoP.")
        var dpopKey: String?

        @Option(name: .long, help: "The redirect URI the code was issued for.")
        var redirectUri = "app://haapi"

        @Option(name: .long, help: "The revocation endpoint (default: the token endpoint's /revoke sibling).")
        var revocationEndpoint: String?

        @Flag(name: .long, help: "Print tokens in full instead of masked.")
        var showTokens = false

        func url(_ text: String, _ name: String) throws -> URL {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("\(name) must be an http(s) URL")
            }
            return url
        }

        func manager() throws -> (OAuthTokenManager, Dpop?) {
            let tokenURL = try url(tokenEndpoint, "--token-endpoint")
            let revocation = try revocationEndpoint.map { try url($0, "--revocation-endpoint") }
                ?? tokenURL.deletingLastPathComponent().appendingPathComponent("revoke")
            let dpop = try dpopKey.map { Dpop(key: try KeyFile.loadOrCreateP256(at: $0).key) }
            let configuration = HaapiConfiguration(
                name: "haapi-cli-token", clientId: client.clientId, baseURL: tokenURL, tokenEndpointURL: tokenURL, authorizationEndpointURL: tokenURL,
                appRedirect: redirectUri, revocationEndpointURL: revocation,
                tokenBoundConfiguration: dpop == nil ? UnboundedTokenConfiguration() : BoundedTokenConfiguration(keyPairType: .p256),
                clientAuthenticationMethod: try client.authenticationMethod())
            return (OAuthTokenManager(oauthTokenConfiguration: configuration), dpop)
        }

        /// Prints the response as JSON; errors go to stdout too (they are the server's answer) and exit 1.
        func report(_ response: TokenResponse) throws {
            switch response {
            case .successfulToken(let token):
                print(TokenOutput.json(token.rawJson, showTokens: showTokens))
            case .errorToken(let error):
                print(TokenOutput.errorJSON(error))
                throw ExitCode(1)
            case .error(let error):
                StandardStreams.printError("haapi token: \(error)")
                throw ExitCode(1)
            }
        }
    }

    struct Exchange: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Redeem an authorization code (grant_type=authorization_code).")
        @OptionGroup var common: Common
        @Option(name: .long, help: "The authorization code.") var code: String
        @Option(name: .long, help: "The PKCE code verifier.") var codeVerifier: String?

        func run() async throws {
            let (manager, dpop) = try common.manager()
            try common.report(await manager.fetchAccessToken(with: code, dpop: dpop, codeVerifier: codeVerifier))
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refresh (grant_type=refresh_token); DPoP-bound tokens need the same --dpop-key.")
        @OptionGroup var common: Common
        @Option(name: .long, help: "The refresh token.") var refreshToken: String

        func run() async throws {
            let (manager, dpop) = try common.manager()
            try common.report(await manager.refreshAccessToken(with: refreshToken, dpop: dpop))
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token (RFC 7009).")
        @OptionGroup var common: Common
        @Option(name: .long, help: "The token to revoke.") var token: String
        @Option(name: .long, help: "access_token or refresh_token.") var tokenTypeHint = "refresh_token"

        func run() async throws {
            let (manager, _) = try common.manager()
            let response = tokenTypeHint == "access_token" ? await manager.revokeAccessToken(token) : await manager.revokeRefreshToken(token)
            switch response {
            case .success: print(#"{"revoked":true}"#)
            case .errorToken(let error):
                print(TokenOutput.errorJSON(error))
                throw ExitCode(1)
            case .error(let error):
                StandardStreams.printError("haapi token revoke: \(error)")
                throw ExitCode(1)
            }
        }
    }
}
