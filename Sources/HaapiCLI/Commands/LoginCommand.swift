import ArgumentParser
import Foundation
import HaapiSdk

/// `haapi login`: a whole HAAPI flow against any server, through the SDK, ending in the token response.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in through a HAAPI server with username and password and print the token response.",
        discussion: """
            Attestation (software, the dev server's policy) is tried unless --attestation none; then the client's own \
            credentials (--client-secret, --client-key or --client-jwt-secret) obtain the HAAPI token. With --dcr-template \
            and --dcr-endpoint a refused attestation falls back to a dynamically registered client. Tokens are DPoP-bound \
            and masked in the output unless --show-tokens.
            """)

    @Option(name: .long, help: "The server's base URL (its discovery document names the endpoints).")
    var server: String

    @OptionGroup var client: ClientOptions

    @Option(name: .long, help: "The redirect URI registered for the client.")
    var redirectUri = "app://haapi"

    @Option(name: .long, help: "Space-separated scopes.")
    var scope = "openid profile"

    @Option(name: .long, help: "software: answer the CAT challenge with the software attester; none: use the client's credentials.")
    var attestation = "software"

    @Option(name: .long, help: "Template client id for the DCR fallback.")
    var dcrTemplate: String?

    @Option(name: .long, help: "Registration endpoint for the DCR fallback.")
    var dcrEndpoint: String?

    @Option(name: .long, help: "Which authenticator to choose when the server offers several (href suffix, type or title).")
    var authenticator = "password"

    @Option(name: .long) var username: String
    @Option(name: .long) var password: String

    @Option(name: .long, help: "Private EC P-256 JWK file for the flow's DPoP key (created mode 0600 if missing), so `haapi token refresh --dpop-key` can use the bound tokens later.")
    var dpopKey: String?

    @Flag(name: .long, help: "Print the RFC 6749 token response as JSON.")
    var json = false

    @Flag(name: .long, help: "Print tokens in full instead of masked.")
    var showTokens = false

    func validate() throws {
        guard ["software", "none"].contains(attestation) else { throw ValidationError("--attestation must be software or none") }
        guard (dcrTemplate == nil) == (dcrEndpoint == nil) else { throw ValidationError("--dcr-template and --dcr-endpoint go together") }
    }

    func run() async throws {
        guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https" else { throw ValidationError("--server must be an http(s) URL") }
        let transport = defaultHttpTransport()
        let endpoints = await ServerEndpoints.discover(base, transport: transport)
        let configuration = HaapiConfiguration(
            name: "haapi-cli-login", clientId: client.clientId, baseURL: base, tokenEndpointURL: endpoints.token,
            authorizationEndpointURL: endpoints.authorization, appRedirect: redirectUri,
            authorizationParametersProvider: { [scope] in OAuthAuthorizationParameters(scopes: scope.split(separator: " ").map(String.init)) },
            transport: transport, revocationEndpointURL: endpoints.revocation,
            attestationConfiguration: AttestationConfiguration(useAttestation: attestation == "software"), attester: SoftwareAttester(),
            tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256), clientAuthenticationMethod: try client.authenticationMethod(),
            dpopKey: try dpopKey.map { try KeyFile.loadOrCreateP256(at: $0).key })
        let builder = HaapiAccessorBuilder(haapiConfiguration: configuration)
        if let dcrTemplate, let dcrEndpoint {
            guard let endpoint = URL(string: dcrEndpoint) else { throw ValidationError("--dcr-endpoint must be a URL") }
            builder.setDCRConfiguration(configuration: DCRConfiguration(templateClientId: dcrTemplate, clientRegistrationEndpointUrl: endpoint))
        }
        let accessor: any HaapiAccessor
        do {
            accessor = try await builder.build()
        } catch {
            StandardStreams.printError("haapi login: \(error) [recovery: \(error.recoverySuggestion)]")
            throw ExitCode(1)
        }
        let manager = accessor.haapiManager
        defer { Task { await manager.close() } }
        let code: String
        do {
            code = try await UnattendedLogin(manager: manager, username: username, password: password, authenticator: authenticator).run()
        } catch {
            StandardStreams.printError("haapi login: \(error)")
            throw ExitCode(1)
        }
        switch await accessor.oAuthTokenManager.fetchAccessToken(with: code, dpop: manager.dpop) {
        case .successfulToken(let token):
            if json {
                print(TokenOutput.json(token.rawJson, showTokens: showTokens))
            } else {
                print("Logged in as \(username) (client \(manager.configuration.clientId))")
                for name in ["token_type", "expires_in", "scope"] {
                    if let value = token.rawJson[name] { print("  \(name): \(value.stringValue ?? value.serialized())") }
                }
                for name in ["access_token", "refresh_token", "id_token"] {
                    if let value = token.rawJson[name]?.stringValue { print("  \(name): \(showTokens ? value : TokenOutput.mask(value))") }
                }
                print("  dpop_jkt: \(manager.dpop.jwkThumbprint)")
            }
        case .errorToken(let error):
            print(TokenOutput.errorJSON(error))
            throw ExitCode(1)
        case .error(let error):
            StandardStreams.printError("haapi login: \(error)")
            throw ExitCode(1)
        }
    }
}
