import ArgumentParser
@_spi(Tooling) import AuthHub
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
@_spi(Tooling) import Passkeys

/// `haapi authhub login`: an Authentication Hub flow (seed 002) from the terminal.
struct AuthHubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authhub",
        abstract: "Sign in through an Authentication Hub flow API (the dev server speaks it too).",
        discussion: HelpExamples.discussion(
            "", "haapi authhub login --server http://localhost:8080 --user demouser --dev-inbox"),
        subcommands: [Login.self])

    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract:
                "Password (encrypted when the tenant requires it), then e-mail OTP or a passkey, to AUTH_ALLOWED.",
            discussion: HelpExamples.discussion(
                "", "haapi authhub login --server http://localhost:8080 --user demouser --dev-inbox",
                "haapi authhub login --server http://localhost:8080 --user demouser --factor FIDO --passkey-store ~/.haapi/passkeys"
            ))

        @Option(name: .long, help: "The hub's base URL, e.g. http://localhost:8080 (the tenant is appended).")
        var server: String
        @Option(name: .long, help: "The tenant.") var tenant = "default"
        @Option(
            name: .long,
            help: "Use this proxy URL for the flow calls instead of <server>/<tenant> (it must resolve to the tenant).")
        var proxyUrl: String?
        @Option(name: .long, help: "The account to sign in.") var user: String
        @Option(name: .long, help: "The client for the client-credentials token.") var clientId = "authhub-app"
        @Option(
            name: .long,
            help: "A file holding the client secret; default: $HAAPI_AUTHHUB_CLIENT_SECRET, else the dev server's.")
        var clientSecretFile: String?
        @Option(
            name: .long,
            help: "The factor to pick at FACTOR_SELECTION (EMAILOTP or FIDO); asked on a terminal otherwise.")
        var factor: String?
        @Option(name: .long, help: "A folder for the software passkey authenticator (the FIDO factor).")
        var passkeyStore: String?
        @Flag(
            name: .long, help: "Read e-mailed codes from the dev server's outbox instead of asking (haapi serve only).")
        var devInbox = false
        @Flag(name: .long, help: "Print the ID and session tokens instead of masking them.")
        var showTokens = false

        func run() async throws {
            let io = TerminalIO(channel: .standardOutput)
            guard let base = URL(string: server), base.scheme == "http" || base.scheme == "https" else {
                throw ValidationError("--server must be an http(s) URL")
            }
            let origin = server.hasSuffix("/") ? String(server.dropLast()) : server
            let address =
                proxyUrl.map { AHServerAddress(serverUrl: $0) } ?? AHServerAddress(serverHost: origin, tenant: tenant)
            let bearer: String
            do { bearer = try await clientToken(origin) } catch {
                // The same words and exit code as every other command (69 when the hub cannot be reached).
                let failure = CLIFailure.classify(error)
                throw CLIFailure(
                    "No client token from the hub: " + failure.message, code: failure.code, details: failure.details)
            }
            var passkeys: SoftwareAuthenticator?
            if let passkeyStore {
                do {
                    passkeys = SoftwareAuthenticator(
                        storage: try FileStorage(directory: URL(fileURLWithPath: passkeyStore)))
                } catch {
                    throw ValidationError("cannot open --passkey-store \(passkeyStore): \(error)")
                }
            }
            let login = AuthHubLogin(
                address: address, bearer: bearer, user: user, factor: factor, passkeys: passkeys,
                documentDomain: origin,
                devInbox: devInbox ? URL(string: origin + "/admin/outbox") : nil, io: io)
            do {
                let outcome = try await login.run()
                summarise(outcome.response, io)
            } catch AuthHubLogin.Failure.flow(.transport(let detail)) {
                throw CLIFailure(
                    ErrorSentence.make("The hub could not be reached", detail), code: ExitCodes.unavailable)
            } catch {
                throw CLIFailure(String(describing: error), code: ExitCodes.failure)
            }
        }

        private func clientSecret() throws -> String {
            if let clientSecretFile {
                let data = try StandardStreams.read(clientSecretFile, what: "--client-secret-file")
                return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return ProcessInfo.processInfo.environment["HAAPI_AUTHHUB_CLIENT_SECRET"] ?? "authhub-secret-change-me"
        }

        /// client_credentials at `<server>/<tenant>/oauth2/v1/token` with HTTP Basic (research A.1).
        private func clientToken(_ origin: String) async throws -> String {
            guard let url = URL(string: "\(origin)/\(tenant)/oauth2/v1/token") else {
                throw ValidationError("bad --server or --tenant")
            }
            let credentials = Data(
                "\(FormURLEncoding.encodeComponent(clientId)):\(FormURLEncoding.encodeComponent(try clientSecret()))"
                    .utf8
            ).base64EncodedString()
            var request = HTTPRequest(
                method: "POST", url: url, body: Data("grant_type=client_credentials&scope=urn%3Aiam%3Amyscopes".utf8))
            request.setHeader("Content-Type", "application/x-www-form-urlencoded")
            request.setHeader("Authorization", "Basic " + credentials)
            let response = try await commandTransport().send(request)
            let body = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            guard response.statusCode == 200, let token = body?["access_token"] as? String else {
                throw ValidationError(
                    "the token endpoint answered \(response.statusCode): \(body?["error_description"] ?? body?["errorMessage"] ?? body?["error"] ?? "no details")"
                )
            }
            return token
        }

        private func summarise(_ response: AHFlowResponse, _ io: TerminalIO) {
            let mask = { (value: String?) in
                value.map { showTokens ? $0 : String($0.prefix(6)) + "…(masked; --show-tokens to print)" } ?? "-"
            }
            io.say(io.paint("✓ Signed in as \(user) (AUTH_ALLOWED)", .green))
            if let idToken = response.idToken, let claims = JWTPayload.claims(idToken) {
                io.say(
                    "  amr: \((claims["amr"] as? [String] ?? []).joined(separator: ", "))  sub: \(claims["sub"] as? String ?? "-")"
                )
            }
            io.say("  id_token: \(mask(response.idToken))")
            io.say("  session_token: \(mask(response.sessionToken))")
        }
    }
}

/// Reads a JWT's payload without checking it (for display only).
enum JWTPayload {
    static func claims(_ token: String) -> [String: Any]? {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let bytes = Base64URL.decode(parts[1]) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
    }
}
