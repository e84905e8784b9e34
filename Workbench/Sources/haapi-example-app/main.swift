// A command-line app built on HaapiSdk the way an app uses it, with the SDK's defaults: no key storage, no
// token binding or attestation settings. It shows what the defaults keep across a relaunch: `login` signs
// in and keeps the refresh token, and a later process (`refresh`) refreshes the DPoP-bound token with the
// same device key and calls the UserInfo endpoint with it.
//
//   haapi-example-app login   --issuer URL --client-id ID --username NAME   (the password is read from stdin)
//   haapi-example-app refresh --issuer URL --client-id ID
//   haapi-example-app logout  --issuer URL --client-id ID
//
// The tokens are kept where the SDK keeps the device key: `PlatformStorage` (the Keychain on Apple
// platforms, sealed 0600 files under the user's application-support folder elsewhere).
import Foundation
@_spi(Tooling) import HaapiSdk

struct ExampleFailure: Error, CustomStringConvertible {
    let description: String
}

/// The command line: a command, then `--name value` pairs.
struct Arguments {
    let command: String
    let options: [String: String]

    init(_ arguments: [String]) throws {
        guard let command = arguments.first else { throw ExampleFailure(description: "usage: login|refresh|logout") }
        self.command = command
        var options: [String: String] = [:]
        var rest = arguments.dropFirst()
        while let name = rest.popFirst() {
            guard name.hasPrefix("--"), let value = rest.popFirst() else {
                throw ExampleFailure(description: "expected --name value, got \(name)")
            }
            options[String(name.dropFirst(2))] = value
        }
        self.options = options
    }

    func value(_ name: String) throws -> String {
        guard let value = options[name] else { throw ExampleFailure(description: "--\(name) is required") }
        return value
    }
}

/// The app's session: its configuration (the same in every process) and the tokens it keeps.
struct ExampleApp {
    let configuration: HaapiConfiguration
    let userinfo: URL?
    let tokens = PlatformStorage(purpose: "example-app-tokens")
    var refreshTokenKey: String { "refresh-token." + configuration.clientId }

    init(issuer: URL, clientId: String) async throws {
        // One discovery request: the endpoints for the configuration and UserInfo's address come from it.
        let metadata = try await ServerMetadata.fetch(issuer: issuer)
        configuration = HaapiConfiguration(
            name: "example-app", clientId: clientId, baseURL: metadata.issuer, tokenEndpointURL: metadata.tokenEndpoint,
            authorizationEndpointURL: metadata.authorizationEndpoint, appRedirect: "app://haapi",
            authorizationParametersProvider: { OAuthAuthorizationParameters(scopes: ["openid", "profile"]) },
            revocationEndpointURL: metadata.revocationEndpoint, introspectionEndpointURL: metadata.introspectionEndpoint
        )
        userinfo = metadata.userinfoEndpoint
    }

    /// Signs in with a password, keeps the refresh token, and says who signed in.
    func login(username: String, password: String) async throws {
        let manager = try HaapiManager(haapiConfiguration: configuration)
        var step = try await manager.start().representation()
        if let selector = step as? AuthenticatorSelectorStep {
            guard let option = selector.authenticators.first(where: { $0.action.model.href.hasSuffix("/password") })
            else { throw ExampleFailure(description: "the server offers no password sign-in") }
            step = try await manager.submitForm(option.action.model).representation()
        }
        guard let form = step as? InteractiveFormStep, let action = (form.actions.first as? FormAction)?.model else {
            throw ExampleFailure(description: "expected the password form, got \(step.type.rawValue)")
        }
        let done = try await manager.submitForm(action, parameters: ["userName": username, "password": password])
            .representation()
        guard let code = (done as? OAuthAuthorizationResponseStep)?.oauthAuthorizationResponseProperties.code else {
            throw ExampleFailure(description: "the sign-in did not end with a code: \(done.type.rawValue)")
        }
        let tokens = try await OAuthTokenManager(oauthTokenConfiguration: configuration)
            .fetchAccessToken(with: code, dpop: manager.dpop).successful()
        try keep(tokens)
        print(
            "signed in: \(try await whoAmI(tokens.accessToken, dpop: manager.dpop)), token type \(tokens.tokenType ?? "none")"
        )
        await manager.close()
    }

    /// In a new process: refreshes the kept token (the SDK finds the device key it is bound to) and calls
    /// the UserInfo endpoint with the new access token.
    func refresh() async throws {
        guard let stored = try tokens.read(key: refreshTokenKey) else {
            throw ExampleFailure(description: "not signed in")
        }
        let oauth = OAuthTokenManager(oauthTokenConfiguration: configuration)
        let refreshed = try await oauth.refreshAccessToken(with: String(decoding: stored, as: UTF8.self)).successful()
        try keep(refreshed)
        let manager = try HaapiManager(haapiConfiguration: configuration)
        print("refreshed: \(try await whoAmI(refreshed.accessToken, dpop: manager.dpop))")
        await manager.close()
    }

    /// Revokes the refresh token and forgets it.
    func logout() async throws {
        guard let stored = try tokens.read(key: refreshTokenKey) else { return }
        _ = await OAuthTokenManager(oauthTokenConfiguration: configuration)
            .revokeRefreshToken(String(decoding: stored, as: UTF8.self))
        try tokens.delete(key: refreshTokenKey)
        print("signed out")
    }

    private func keep(_ tokens: SuccessfulTokenResponse) throws {
        guard let refreshToken = tokens.refreshToken else { return }
        try self.tokens.write(Data(refreshToken.utf8), key: refreshTokenKey)
    }

    /// GET UserInfo with `Authorization: DPoP <token>` and a proof of the device key; once more with the
    /// server's nonce when it asks for one (RFC 9449 §9).
    private func whoAmI(_ accessToken: String, dpop: Dpop) async throws -> String {
        guard let userinfo else { throw ExampleFailure(description: "the server has no UserInfo endpoint") }
        var nonce: String?
        for _ in 0..<2 {
            let proof = try dpop.createProof(httpMethod: "GET", url: userinfo, nonce: nonce, accessToken: accessToken)
            let response = try await configuration.transport.send(
                HTTPRequest(
                    method: "GET", url: userinfo,
                    headers: [
                        ("Authorization", "DPoP " + accessToken), ("DPoP", proof), ("Accept", "application/json"),
                    ]))
            if response.statusCode == 401, nonce == nil, let fresh = response.header("DPoP-Nonce") {
                nonce = fresh
                continue
            }
            guard response.statusCode == 200,
                let claims = try? JSONParser().parse(response.body).objectValue,
                let subject = claims["sub"]?.stringValue
            else {
                throw ExampleFailure(description: "UserInfo answered \(response.statusCode)")
            }
            return subject
        }
        throw ExampleFailure(description: "UserInfo kept asking for a new nonce")
    }
}

extension HaapiResult {
    func representation() throws -> any HaapiRepresentation {
        switch self {
        case .representation(let step): return step
        case .problem(let problem):
            throw ExampleFailure(description: "the server refused: \(problem.title?.description ?? "")")
        case .error(let error): throw ExampleFailure(description: "\(error)")
        }
    }
}

extension TokenResponse {
    func successful() throws -> SuccessfulTokenResponse {
        switch self {
        case .successfulToken(let tokens): return tokens
        case .errorToken(let error):
            throw ExampleFailure(description: "token endpoint: \(error.error) \(error.errorDescription ?? "")")
        case .error(let error): throw ExampleFailure(description: "\(error)")
        }
    }
}

do {
    let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
    guard let issuer = URL(string: try arguments.value("issuer")) else {
        throw ExampleFailure(description: "--issuer must be a URL")
    }
    let app = try await ExampleApp(issuer: issuer, clientId: try arguments.value("client-id"))
    switch arguments.command {
    case "login":
        let password = readLine(strippingNewline: true) ?? ""
        try await app.login(username: try arguments.value("username"), password: password)
    case "refresh": try await app.refresh()
    case "logout": try await app.logout()
    default: throw ExampleFailure(description: "unknown command \(arguments.command)")
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
