import ArgumentParser
import Foundation
import HaapiCheck
@_spi(Tooling) import HaapiUI

/// `haapi login`: a whole HAAPI flow against any server, through the SDK, ending in the token response.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log in through a HAAPI server and print the token response.",
        discussion: HelpExamples.discussion(
            """
            With --username and --password the password authenticator runs unattended (a later step that asks for \
            more, such as a code, ends the login naming the field). Without them, the login is interactive when \
            standard input is a terminal (every step is drawn and asked for), or scripted with --answers FILE: a \
            JSON array of answers used in order. A selector takes {"choose":"bankid"} (title, authenticator id, type \
            or number); a form {"fields":{"userName":"demouser","password":"Password1"}}, with "action" to pick one \
            of several forms or buttons ({"action":"Accept"} for consent); a wait {"cancel":true} to give up; an \
            external browser {"resumeUrl":"…"}. Waits, BankID and Encap launches and passkeys need no answer. An \
            answer that fits nothing ends the login with what the step offers.
            Attestation (software, the dev server's policy) is tried unless --attestation none; then the client's own \
            credentials (--client-secret, --client-key or --client-jwt-secret) obtain the HAAPI token. With \
            --dcr-template and --dcr-endpoint a refused attestation falls back to a dynamically registered client. \
            Tokens are DPoP-bound and masked in the output unless --show-tokens. --save-session DIR keeps the tokens \
            and the DPoP key (sealed, 0600) for `haapi token refresh|revoke|introspect --session DIR`.
            """,
            "haapi login --server http://localhost:8080 --client-id haapi-demo",
            "haapi login --server http://localhost:8080 --client-id haapi-demo --username demouser --password-file pw.txt --save-session ~/.haapi/session",
            "haapi login --server https://login.example.com --client-id my-app --record my-login.json",
            "HAAPI_CLIENT_SECRET=s haapi login --server http://localhost:8080 --client-id haapi-dcr-main --dcr-template haapi-dcr-template --dcr-endpoint http://localhost:8080/oauth/register"
        ))

    @Option(name: .long, help: "The server's base URL (its discovery document names the endpoints).")
    var server: String

    @OptionGroup var client: ClientOptions

    @Option(name: .long, help: "The redirect URI registered for the client.")
    var redirectUri = "app://haapi"

    @Option(name: .long, help: "Space-separated scopes.")
    var scope = "openid profile"

    @Option(
        name: .long,
        help: "software: answer the CAT challenge with the software attester; none: use the client's credentials.")
    var attestation = "software"

    @Option(name: .long, help: "Template client id for the DCR fallback.")
    var dcrTemplate: String?

    @Option(name: .long, help: "Registration endpoint for the DCR fallback.")
    var dcrEndpoint: String?

    @Option(
        name: .long,
        help: "Which authenticator to choose unattended when the server offers several (href suffix, type or title).")
    var authenticator = "password"

    @Option(name: .long, parsing: .unconditional, help: "With --password: log in unattended.")
    var username: String?

    @Option(
        name: .long, parsing: .unconditional,
        help:
            "With --username: log in unattended. Prefer --password-file or $HAAPI_PASSWORD: options are visible to other users."
    )
    var password: String?

    @Option(name: .long, help: "A file holding the password for --username (- reads standard input).")
    var passwordFile: String?

    @Option(name: .long, help: "Scripted answers (JSON array) instead of a terminal.")
    var answers: String?

    @Option(name: .long, help: "Private EC P-256 JWK file for the flow's DPoP key (created mode 0600 if missing).")
    var dpopKey: String?

    @Option(
        name: .long, help: "Folder to keep the session in (tokens and DPoP key, sealed) for `haapi token … --session`.")
    var saveSession: String?

    @Flag(
        name: .customLong("new-dpop-key"),
        help: "With --save-session: bind the new tokens to a new DPoP key instead of the folder's existing one.")
    var newDPoPKey = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write the steps the server sent as a configuration for `haapi serve --config` (docs/FLOWS.md), or add this login's path to the recording already in the file: no token, code, nonce, header or value you typed.",
            valueName: "file"))
    var record: String?

    @Option(
        name: .long,
        help: "Seconds each request may take (30 by default); a server that answers nothing ends the login, exit 69.")
    var timeout: Double = 30

    @Flag(name: .long, help: "Print the RFC 6749 token response as JSON.")
    var json = false

    @Flag(
        name: .long,
        help:
            "Print token values. Otherwise text output masks them and JSON output replaces them with {\"redacted\": true, \"length\": N}."
    )
    var showTokens = false

    func validate() throws {
        guard client.clientId != nil else { throw ValidationError("--client-id is required") }
        guard ["software", "none"].contains(attestation) else {
            throw ValidationError("--attestation must be software or none")
        }
        guard (dcrTemplate == nil) == (dcrEndpoint == nil) else {
            throw ValidationError("--dcr-template and --dcr-endpoint go together")
        }
        if password != nil || passwordFile != nil, username == nil {
            throw ValidationError("--password goes with --username")
        }
        guard !newDPoPKey || saveSession != nil else {
            throw ValidationError("--new-dpop-key goes with --save-session")
        }
        guard timeout.isFinite, (0.1...3600).contains(timeout) else {
            throw ValidationError("--timeout must be between 0.1 and 3600 seconds")
        }
    }

    @MainActor
    func run() async throws {
        guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https" else {
            throw ValidationError("--server must be an http(s) URL")
        }
        let clientId = client.clientId ?? ""
        let endpoints = try await ServerEndpoints.discover(base, transport: commandTransport(timeout: timeout))
        let recording = record.map { _ in FlowRecording() }
        let transport: any HTTPTransport =
            recording.map { RecordingTransport(inner: commandTransport(timeout: timeout), recording: $0) }
            ?? commandTransport(timeout: timeout)
        // The session folder keeps its DPoP key in the SDK's key store, so logging in again keeps the binding.
        let key: SoftwareP256SigningKey =
            try dpopKey.map { try KeyFile.loadOrCreateP256(at: $0).key }
            ?? saveSession.map { try SavedSession.deviceKey(in: $0, clientId: clientId, fresh: newDPoPKey) }
            ?? SoftwareP256SigningKey()
        let method = try client.authenticationMethod()
        let dcr = try dcrTemplate.map { template -> DCRConfiguration in
            guard let endpoint = dcrEndpoint.flatMap(URL.init(string:)) else {
                throw ValidationError("--dcr-endpoint must be a URL")
            }
            return DCRConfiguration(
                templateClientId: template, clientRegistrationEndpointUrl: endpoint,
                storage: try saveSession.map { try SavedSession.storage($0) })
        }
        let outcome: (tokens: JSONObject, clientId: String, jkt: String)
        let password =
            try username == nil
            ? nil
            : SecretInput.resolve(
                value: password, file: passwordFile, environment: "HAAPI_PASSWORD", option: "--password")
        if username != nil, password == nil {
            throw ValidationError("--username needs a password: --password-file FILE, $HAAPI_PASSWORD, or --password")
        }
        if let username, let password {
            outcome = try await unattended(
                base: base, endpoints: endpoints, transport: transport, key: key, method: method, dcr: dcr,
                username: username, password: password)
        } else {
            let io = TerminalIO()
            guard io.isInteractive || answers != nil else {
                throw ValidationError(
                    "standard input is not a terminal: give --username and --password, or --answers FILE")
            }
            outcome = try await interactive(
                base: base, endpoints: endpoints, transport: transport, key: key, method: method, dcr: dcr, io: io)
        }
        if let record, let recording {
            try await write(recording, to: record, clientId: clientId, host: base.host ?? "the server")
        }
        if let saveSession {
            try SavedSession(
                tokenEndpoint: endpoints.token, revocationEndpoint: endpoints.revocation,
                introspectionEndpoint: endpoints.introspection,
                clientId: outcome.clientId,
                clientSecret: outcome.clientId == clientId ? try client.resolvedClientSecret : dynamicSecret(dcr),
                redirectURI: redirectUri, tokens: outcome.tokens, dpopKey: key, keyClientId: clientId
            ).save(to: saveSession)
            StandardStreams.printError("haapi login: session saved in \(saveSession)")
        }
        if json {
            print(TokenOutput.json(outcome.tokens, showTokens: showTokens))
        } else {
            print("Logged in (client \(outcome.clientId))")
            for name in ["token_type", "expires_in", "scope"] {
                if let value = outcome.tokens[name] { print("  \(name): \(value.stringValue ?? value.serialized())") }
            }
            for name in ["access_token", "refresh_token", "id_token"] {
                if let value = outcome.tokens[name]?.stringValue {
                    print("  \(name): \(showTokens ? value : TokenOutput.mask(value))")
                }
            }
            print("  dpop_jkt: \(outcome.jkt)")
        }
    }

    /// Writes the recording as a configuration for `haapi serve --config`, or adds the path taken to the one
    /// already in the file.
    private func write(_ recording: FlowRecording, to file: String, clientId: String, host: String) async throws {
        let path = await recording.path()
        guard !path.isEmpty else { throw CLIFailure("--record: the server sent no HAAPI step to record") }
        let written = try RecordingFile.write(
            path, to: file, clientId: clientId, redirectURI: redirectUri,
            scopes: scope.split(separator: " ").map(String.init), host: host)
        let unplaced = await recording.unplaced
        StandardStreams.printError(
            "haapi login: \(written.added) new step\(written.added == 1 ? "" : "s") recorded, \(written.steps) in \(file)"
                + (unplaced > 0 ? " (\(unplaced) answer\(unplaced == 1 ? "" : "s") no action led to left out)" : "")
                + "; serve it with: haapi serve --config \(file)")
    }

    /// The dynamic client's secret, read back from where the DCR fallback stored it.
    private func dynamicSecret(_ dcr: DCRConfiguration?) -> String? {
        guard let dcr, let data = try? dcr.storage?.read(key: dcr.storageKey) else { return nil }
        return (try? JSONParser().parse(data))?["client_secret"]?.stringValue
    }

    private func haapiConfiguration(
        base: URL, endpoints: ServerEndpoints, transport: any HTTPTransport, key: any SigningKey,
        method: any ClientAuthenticationMethod
    ) -> HaapiConfiguration {
        HaapiConfiguration(
            name: "haapi-cli-login", clientId: client.clientId ?? "", baseURL: base, tokenEndpointURL: endpoints.token,
            authorizationEndpointURL: endpoints.authorization, appRedirect: redirectUri,
            authorizationParametersProvider: { [scope] in
                OAuthAuthorizationParameters(scopes: scope.split(separator: " ").map(String.init))
            },
            transport: transport, revocationEndpointURL: endpoints.revocation,
            introspectionEndpointURL: endpoints.introspection,
            attestationConfiguration: AttestationConfiguration(useAttestation: attestation == "software"),
            attester: SoftwareAttester(),
            tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256), clientAuthenticationMethod: method,
            dpopKeyStorage: nil, dpopKey: key)
    }

    private func unattended(
        base: URL, endpoints: ServerEndpoints, transport: any HTTPTransport, key: any SigningKey,
        method: any ClientAuthenticationMethod, dcr: DCRConfiguration?, username: String, password: String
    )
        async throws -> (tokens: JSONObject, clientId: String, jkt: String)
    {
        var builder = HaapiAccessorBuilder(
            haapiConfiguration: haapiConfiguration(
                base: base, endpoints: endpoints, transport: transport, key: key, method: method))
        if let dcr { builder = builder.setDCRConfiguration(configuration: dcr) }
        let accessor: any HaapiAccessor
        accessor = try await builder.build()
        let manager = accessor.haapiManager
        defer { Task { await manager.close() } }
        let code = try await UnattendedLogin(
            manager: manager, username: username, password: password, authenticator: authenticator,
            onConsent: { StandardStreams.printError("haapi login: accepting the consent step") }
        ).run()
        switch await accessor.oAuthTokenManager.fetchAccessToken(with: code, dpop: manager.dpop) {
        case .successfulToken(let token):
            return (token.rawJSON, manager.configuration.clientId, manager.dpop.jwkThumbprint)
        case .errorToken(let error):
            throw CLIFailure.tokenEndpointRefused(error)
        case .error(let error):
            throw error
        }
    }

    @MainActor
    private func interactive(
        base: URL, endpoints: ServerEndpoints, transport: any HTTPTransport, key: any SigningKey,
        method: any ClientAuthenticationMethod, dcr: DCRConfiguration?, io: TerminalIO
    )
        async throws -> (tokens: JSONObject, clientId: String, jkt: String)
    {
        var builder = HaapiUIKitConfigurationBuilder(
            clientId: client.clientId ?? "", baseUrl: base, tokenEndpointUrl: endpoints.token,
            authorizationEndpointUrl: endpoints.authorization, appRedirect: redirectUri
        )
        .setScopes(scope.split(separator: " ").map(String.init))
        .setAttestationConfiguration(AttestationConfiguration(useAttestation: attestation == "software"))
        .setAttester(SoftwareAttester())
        .setClientAuthenticationMethod(method)
        .setTokenBoundConfiguration(BoundedTokenConfiguration(keyPairType: .p256))
        .setTransport(transport)
        .setExternalAppOpener(PrintedLinkOpener(io: io))
        if let revocation = endpoints.revocation { builder = builder.setRevocationEndpointURL(revocation) }
        if let dcr { builder = builder.setDCRConfiguration(dcr) }
        let application = HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: builder.build()).setDPoPKey(key).build()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: application)
        let flow = TerminalFlow(viewModel: viewModel, io: io, answers: try answers.map { try FlowAnswers(file: $0) })
        let outcome = await flow.run()
        let clientId = viewModel.flowClientID ?? (client.clientId ?? "")
        await viewModel.close()
        switch outcome {
        case .tokens(let tokens):
            return (tokens.rawJSON, clientId, key.thumbprint)
        case .cancelled:
            throw CLIFailure("cancelled", code: ExitCodes.cancelled)
        case .failed(let error):
            throw error
        }
    }
}
