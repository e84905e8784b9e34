import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiSdk

/// `haapi token exchange|refresh|revoke|introspect`: plain OAuth against any server, through `OAuthTokenManager`.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract:
            "Exchange a code, refresh, revoke or introspect tokens at any OAuth server (DPoP when a key is given).",
        discussion: HelpExamples.discussion(
            "With --session DIR (made by `haapi login --save-session DIR`) the endpoints, client, tokens and DPoP key come from the saved session, and a refresh updates it.",
            "haapi token refresh --session ~/.haapi/session", "haapi token introspect --session ~/.haapi/session",
            "haapi token revoke --session ~/.haapi/session"),
        subcommands: [Exchange.self, Refresh.self, Revoke.self, Introspect.self])

    struct Common: ParsableArguments {
        @Option(name: .long, help: "The token endpoint URL.")
        var tokenEndpoint: String?

        @OptionGroup var client: ClientOptions

        @Option(
            name: .long,
            help: "Private EC P-256 JWK file for DPoP proofs (created mode 0600 if missing). Without it, no DPoP.")
        var dpopKey: String?

        @Option(name: .long, help: "The redirect URI the code was issued for.")
        var redirectUri: String?

        @Option(name: .long, help: "The revocation endpoint (default: the token endpoint's /revoke sibling).")
        var revocationEndpoint: String?

        @Option(name: .long, help: "The introspection endpoint (default: the token endpoint's /introspect sibling).")
        var introspectionEndpoint: String?

        @Option(name: .long, help: "A session folder saved by `haapi login --save-session`.")
        var session: String?

        @Flag(
            name: .long,
            help:
                "Print token values. Otherwise text output masks them and JSON output replaces them with {\"redacted\": true, \"length\": N}."
        )
        var showTokens = false

        func url(_ text: String, _ name: String) throws -> URL {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("\(name) must be an http(s) URL")
            }
            return url
        }

        func loadSession() throws -> SavedSession? {
            try session.map { try SavedSession.load(from: $0) }
        }

        func manager(_ saved: SavedSession?) throws -> (OAuthTokenManager, Dpop?) {
            guard let tokenText = tokenEndpoint ?? saved?.tokenEndpoint.absoluteString else {
                throw ValidationError("--token-endpoint (or --session) is required")
            }
            guard let clientId = client.clientId ?? saved?.clientId else {
                throw ValidationError("--client-id (or --session) is required")
            }
            let tokenURL = try url(tokenText, "--token-endpoint")
            let revocation =
                try revocationEndpoint.map { try url($0, "--revocation-endpoint") }
                ?? saved?.revocationEndpoint ?? tokenURL.deletingLastPathComponent().appendingPathComponent("revoke")
            let introspection =
                try introspectionEndpoint.map { try url($0, "--introspection-endpoint") }
                ?? saved?.introspectionEndpoint
                ?? tokenURL.deletingLastPathComponent().appendingPathComponent("introspect")
            let key: SoftwareP256SigningKey? =
                try dpopKey.map { try KeyFile.loadOrCreateP256(at: $0).key } ?? saved?.dpopKey
            let dpop = key.map { Dpop(key: $0) }
            var method = try client.authenticationMethod()
            if method is ClientAuthenticationMethodNone, let secret = saved?.clientSecret {
                method = ClientAuthenticationMethodSecret(secret)
            }
            let configuration = HaapiConfiguration(
                name: "haapi-cli-token", clientId: clientId, baseURL: tokenURL, tokenEndpointURL: tokenURL,
                authorizationEndpointURL: tokenURL,
                appRedirect: redirectUri ?? saved?.redirectURI ?? "app://haapi", transport: commandTransport(),
                revocationEndpointURL: revocation, introspectionEndpointURL: introspection,
                tokenBoundConfiguration: dpop == nil
                    ? UnboundedTokenConfiguration() : BoundedTokenConfiguration(keyPairType: .p256),
                clientAuthenticationMethod: method)
            return (OAuthTokenManager(oauthTokenConfiguration: configuration), dpop)
        }

        /// Prints the response as JSON; an OAuth error goes to stdout too (it is the server's answer), with a
        /// line on stderr and exit code 77.
        func report(_ response: TokenResponse, saving saved: SavedSession? = nil) throws {
            switch response {
            case .successfulToken(let token):
                if var saved, let session {
                    saved.update(with: token.rawJSON)
                    try saved.save(to: session)
                }
                print(TokenOutput.json(token.rawJSON, showTokens: showTokens))
            case .errorToken(let error):
                print(TokenOutput.errorJSON(error))
                throw CLIFailure.tokenEndpointRefused(error)
            case .error(let error):
                throw error
            }
        }
    }

    struct Exchange: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Redeem an authorization code (grant_type=authorization_code).",
            discussion: HelpExamples.discussion(
                "",
                "haapi token exchange --token-endpoint http://localhost:8080/oauth/token --client-id haapi-demo --code \"$CODE\" --code-verifier \"$VERIFIER\" --dpop-key dpop.jwk"
            ))
        @OptionGroup var common: Common
        @Option(name: .long, parsing: .unconditional, help: "The authorization code.") var code: String
        @Option(name: .long, parsing: .unconditional, help: "The PKCE code verifier.") var codeVerifier: String?

        func run() async throws {
            let (manager, dpop) = try common.manager(nil)
            try common.report(await manager.fetchAccessToken(with: code, dpop: dpop, codeVerifier: codeVerifier))
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Refresh (grant_type=refresh_token); DPoP-bound tokens need the same key.",
            discussion: HelpExamples.discussion(
                "", "haapi token refresh --session ~/.haapi/session",
                "haapi token refresh --token-endpoint http://localhost:8080/oauth/token --client-id haapi-demo --refresh-token \"$RT\" --dpop-key dpop.jwk"
            ))
        @OptionGroup var common: Common
        @Option(name: .long, parsing: .unconditional, help: "The refresh token (default: the session's).")
        var refreshToken: String?

        func run() async throws {
            let saved = try common.loadSession()
            guard let token = refreshToken ?? saved?.tokens["refresh_token"]?.stringValue else {
                throw ValidationError("--refresh-token (or a --session with one) is required")
            }
            let (manager, dpop) = try common.manager(saved)
            try common.report(await manager.refreshAccessToken(with: token, dpop: dpop), saving: saved)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a token (RFC 7009).",
            discussion: HelpExamples.discussion(
                "", "haapi token revoke --session ~/.haapi/session",
                "haapi token revoke --session ~/.haapi/session --token-type-hint access_token"))
        @OptionGroup var common: Common
        @Option(
            name: .long, parsing: .unconditional, help: "The token to revoke (default: the session's refresh token).")
        var token: String?
        @Option(name: .long, help: "access_token or refresh_token.") var tokenTypeHint = "refresh_token"

        func run() async throws {
            let saved = try common.loadSession()
            guard let token = token ?? saved?.tokens[tokenTypeHint]?.stringValue else {
                throw ValidationError("--token (or a --session) is required")
            }
            let (manager, _) = try common.manager(saved)
            let response =
                tokenTypeHint == "access_token"
                ? await manager.revokeAccessToken(token) : await manager.revokeRefreshToken(token)
            switch response {
            case .success: print(#"{"revoked":true}"#)
            case .errorToken(let error):
                print(TokenOutput.errorJSON(error))
                throw CLIFailure.tokenEndpointRefused(error)
            case .error(let error):
                throw error
            }
        }
    }

    struct Introspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask the server about a token (RFC 7662).",
            discussion: HelpExamples.discussion(
                "", "haapi token introspect --session ~/.haapi/session",
                "HAAPI_CLIENT_SECRET=s haapi token introspect --token-endpoint http://localhost:8080/oauth/token --client-id my-client --token \"$AT\""
            ))
        @OptionGroup var common: Common
        @Option(name: .long, parsing: .unconditional, help: "The token (default: the session's access token).")
        var token: String?

        func run() async throws {
            let saved = try common.loadSession()
            guard let token = token ?? saved?.tokens["access_token"]?.stringValue else {
                throw ValidationError("--token (or a --session) is required")
            }
            let (manager, dpop) = try common.manager(saved)
            switch await manager.introspect(token, dpop: dpop) {
            case .success(let answer): print(JSONValue.object(answer).serialized())
            case .failure(let error):
                throw error
            }
        }
    }
}
