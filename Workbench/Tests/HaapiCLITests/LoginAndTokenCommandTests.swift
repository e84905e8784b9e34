import ChildProcesses
import Foundation
@_spi(Tooling) import HaapiModel
import Testing

/// `haapi login` and `haapi token` against `haapi serve`, as a user would run them.
@Suite("haapi login and haapi token")
struct LoginAndTokenCommandTests {
    static func startServer() async throws -> (ChildProcess, String) {
        let (process, output) = try CLIRunner.start(["serve", "--port", "0"])
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") }).description
        return (process, base)
    }

    @Test(
        "login prints masked tokens; --json --show-tokens prints the token response; refresh with the same key; another key is refused; revoke"
    )
    func loginRefreshRevoke() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let directory = try CLIRunner.temporaryDirectory()
        let key = directory.appendingPathComponent("dpop.jwk").path

        let masked = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "Password1",
        ])
        #expect(masked.status == 0, "\(masked.stderr)")
        #expect(masked.stdout.contains("token_type: DPoP"))
        #expect(masked.stdout.contains("masked"))

        // --json without --show-tokens: token members are typed as redacted, never a placeholder string.
        let redacted = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "Password1",
            "--json",
        ])
        let redactedJSON = try JSONParser().parse(redacted.stdout)
        for member in ["access_token", "refresh_token"] {
            #expect(redactedJSON[member]?["redacted"] == true, "\(member): \(redacted.stdout)")
            #expect((redactedJSON[member]?["length"]?.numberValue?.intValue ?? 0) > 20)
        }
        #expect(!redacted.stdout.contains("masked"))

        let login = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "Password1",
            "--dpop-key", key, "--json", "--show-tokens",
        ])
        #expect(login.status == 0, "\(login.stderr)")
        let tokens = try JSONParser().parse(login.stdout)
        let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
        #expect(tokens["token_type"] == "DPoP")

        let common = ["--token-endpoint", base + "/oauth/token", "--client-id", "haapi-demo"]
        let refreshed = try await CLIRunner.run(
            ["token", "refresh"] + common + ["--dpop-key", key, "--refresh-token", refreshToken, "--show-tokens"])
        #expect(refreshed.status == 0, "\(refreshed.stdout) \(refreshed.stderr)")
        let rotated = try #require(try JSONParser().parse(refreshed.stdout)["refresh_token"]?.stringValue)

        let otherKey = directory.appendingPathComponent("other.jwk").path
        let stolen = try await CLIRunner.run(
            ["token", "refresh"] + common + ["--dpop-key", otherKey, "--refresh-token", rotated])
        #expect(stolen.status == 77, "refused: \(stolen.stderr)")
        #expect(stolen.stderr.hasPrefix("error: ") && stolen.stderr.contains("invalid_dpop_proof"), "\(stolen.stderr)")
        #expect(try JSONParser().parse(stolen.stdout)["error"]?.stringValue != nil)

        let revoked = try await CLIRunner.run(["token", "revoke"] + common + ["--token", rotated])
        #expect(revoked.status == 0, "\(revoked.stdout) \(revoked.stderr)")
        let afterRevoke = try await CLIRunner.run(
            ["token", "refresh"] + common + ["--dpop-key", key, "--refresh-token", rotated])
        #expect(afterRevoke.status == 77)
        #expect(try JSONParser().parse(afterRevoke.stdout)["error"] == "invalid_grant")
    }

    /// Random tokens are base64url, so one in 64 starts with `-`; such a value must still be read as the option's value.
    @Test("token and secret values that start with a dash are values, not options")
    func dashLeadingValues() async throws {
        let endpoint = ["--token-endpoint", "http://127.0.0.1:9/oauth/token", "--client-id", "haapi-demo"]
        for arguments in [
            ["token", "refresh"] + endpoint + ["--refresh-token", "-x7Q"],
            ["token", "revoke"] + endpoint + ["--token", "--x7Q"],
            ["token", "exchange"] + endpoint + ["--code", "-c", "--code-verifier", "-v"],
            ["token", "introspect"] + endpoint + ["--client-secret", "-s", "--token", "-t"],
        ] {
            let result = try await CLIRunner.run(arguments)
            #expect(!result.stderr.contains("Missing value"), "\(arguments): \(result.stderr)")
            #expect(
                result.status == 69,
                "\(arguments): the request itself fails (nothing listens on port 9): \(result.stderr)")
            #expect(
                result.stderr.contains("error: ") && result.stderr.contains("127.0.0.1:9 refused the connection"),
                "\(result.stderr)")
            #expect(!result.stderr.contains("errno") && !result.stderr.contains("Optional("), "\(result.stderr)")
        }
    }

    @Test(
        "secrets without the command line: --password-file, standard input, $HAAPI_PASSWORD, $HAAPI_CLIENT_SECRET; two sources are refused"
    )
    func secretsOffTheCommandLine() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let directory = try CLIRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("password").path
        try Data("Password1\n".utf8).write(to: URL(fileURLWithPath: file))
        let login = ["login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser"]

        let fromFile = try await CLIRunner.run(login + ["--password-file", file])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let fromStdin = try await CLIRunner.run(login + ["--password-file", "-"], stdin: Data("Password1\n".utf8))
        #expect(fromStdin.status == 0, "\(fromStdin.stderr)")
        let fromEnvironment = try await CLIRunner.run(login, environment: ["HAAPI_PASSWORD": "Password1"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.stderr)")
        let none = try await CLIRunner.run(login)
        #expect(none.status == 64 && none.stderr.contains("--password-file"), "\(none.stderr)")
        let both = try await CLIRunner.run(login + ["--password", "x", "--password-file", file])
        #expect(both.status == 64 && both.stderr.contains("not both"), "\(both.stderr)")

        let dcr = try await CLIRunner.run(
            [
                "login", "--server", base, "--client-id", "haapi-dcr-main", "--dcr-template", "haapi-dcr-template",
                "--dcr-endpoint", base + "/oauth/register", "--username", "demouser",
            ],
            environment: ["HAAPI_PASSWORD": "Password1", "HAAPI_CLIENT_SECRET": "dcr-main-secret-change-me"])
        #expect(dcr.status == 0 && dcr.stdout.contains("(client dyn-"), "\(dcr.stderr)")
    }

    @Test("a DCR login saved to a session folder: later processes refresh and revoke as the registered client")
    func dcrSessionAcrossProcesses() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let folder = try CLIRunner.temporaryDirectory().appendingPathComponent("session").path
        let login = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "haapi-dcr-main", "--client-secret", "dcr-main-secret-change-me",
            "--dcr-template", "haapi-dcr-template", "--dcr-endpoint", base + "/oauth/register",
            "--username", "demouser", "--password", "Password1", "--save-session", folder,
        ])
        #expect(login.status == 0 && login.stdout.contains("(client dyn-"), "\(login.stderr)")
        // Each `haapi token` is a new process that starts from what the first one stored.
        let refreshed = try await CLIRunner.run(["token", "refresh", "--session", folder])
        #expect(refreshed.status == 0, "\(refreshed.stderr)")
        let again = try await CLIRunner.run(["token", "refresh", "--session", folder])
        #expect(again.status == 0, "\(again.stderr)")
        let revoked = try await CLIRunner.run(["token", "revoke", "--session", folder])
        #expect(revoked.status == 0, "\(revoked.stderr)")
    }

    @Test("login through the DCR fallback, and a wrong password is a clear error")
    func dcrAndWrongPassword() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let dcr = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "haapi-dcr-main", "--client-secret", "dcr-main-secret-change-me",
            "--dcr-template", "haapi-dcr-template", "--dcr-endpoint", base + "/oauth/register",
            "--username", "demouser", "--password", "Password1",
        ])
        #expect(dcr.status == 0, "\(dcr.stderr)")
        #expect(dcr.stdout.contains("(client dyn-"))

        let wrong = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "nope",
        ])
        #expect(wrong.status == 77, "\(wrong.stderr)")
        // The server's words, not its problem-type URI (that is a --verbose detail).
        #expect(
            wrong.stderr.hasPrefix("error: ") && !wrong.stderr.contains("https://curity.se/problems"), "\(wrong.stderr)"
        )
        let verbose = try await CLIRunner.run(
            ["login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "nope"],
            environment: ["HAAPI_VERBOSE": "1"])
        #expect(verbose.status == 77 && verbose.stderr.contains("incorrect-credentials"), "\(verbose.stderr)")

        // A URL where no HAAPI server answers is named as such, and is "unavailable" (69), not "refused".
        let notHaapi = try await CLIRunner.run([
            "login", "--server", base + "/nothing", "--client-id", "haapi-demo", "--username", "demouser",
            "--password", "Password1",
        ])
        #expect(notHaapi.status == 69 && notHaapi.stderr.contains("does not speak HAAPI"), "\(notHaapi.stderr)")

        // An unknown client is named as such, not as a refused attestation.
        let unknown = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "no-such-client", "--username", "demouser",
            "--password", "Password1",
        ])
        #expect(unknown.status == 77 && unknown.stderr.contains("does not know this client"), "\(unknown.stderr)")
    }

    @Test(
        "login --save-session, then token introspect|refresh|revoke --session use the saved endpoints, tokens and DPoP key"
    )
    func savedSession() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let session = try CLIRunner.temporaryDirectory().appendingPathComponent("session").path
        let login = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "Password1",
            "--save-session", session,
        ])
        #expect(login.status == 0, "\(login.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: session)
        for file in files {
            let mode = try FileManager.default.attributesOfItem(atPath: session + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file)")
        }
        let sealed = try files.map { try Data(contentsOf: URL(fileURLWithPath: session + "/" + $0)) }
        // Sealed, not plain JSON.
        #expect(!sealed.contains { String(decoding: $0, as: UTF8.self).contains("refresh_token") })

        let introspection = try await CLIRunner.run(["token", "introspect", "--session", session])
        #expect(introspection.status == 0, "\(introspection.stderr)")
        let answer = try JSONParser().parse(introspection.stdout)
        #expect(answer["active"] == true && answer["sub"] == "demouser" && answer["cnf"]?["jkt"]?.stringValue != nil)

        let refreshed = try await CLIRunner.run(["token", "refresh", "--session", session, "--show-tokens"])
        #expect(refreshed.status == 0, "\(refreshed.stdout) \(refreshed.stderr)")
        // Uses the rotated token saved by the first refresh.
        let again = try await CLIRunner.run(["token", "refresh", "--session", session])
        #expect(again.status == 0, "\(again.stdout) \(again.stderr)")
        #expect(try await CLIRunner.run(["token", "revoke", "--session", session]).status == 0)
        let dead = try await CLIRunner.run(["token", "refresh", "--session", session])
        #expect(dead.status == 77 && dead.stdout.contains("invalid_grant"))
    }

    @Test(
        "a second login into the same session folder keeps the DPoP key (the SDK's key store); --new-dpop-key replaces it"
    )
    func sessionKeepsItsKey() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let session = try CLIRunner.temporaryDirectory().appendingPathComponent("session").path
        func loginAndKey(_ extra: [String] = []) async throws -> String? {
            let login = try await CLIRunner.run(
                [
                    "login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password",
                    "Password1",
                    "--save-session", session,
                ] + extra)
            #expect(login.status == 0, "\(login.stderr)")
            let introspection = try await CLIRunner.run(["token", "introspect", "--session", session])
            return try JSONParser().parse(introspection.stdout)["cnf"]?["jkt"]?.stringValue
        }
        let first = try #require(try await loginAndKey())
        #expect(try await loginAndKey() == first)
        let replaced = try #require(try await loginAndKey(["--new-dpop-key"]))
        #expect(replaced != first)
        #expect(try await CLIRunner.run(["token", "refresh", "--session", session]).status == 0)
        #expect(
            try await CLIRunner.run(["login", "--server", base, "--client-id", "haapi-demo", "--new-dpop-key"]).status
                == 64)
    }

    @Test("login without --username and without a terminal asks for --answers; --answers runs the flow")
    func scriptedLogin() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let refused = try await CLIRunner.run(["login", "--server", base, "--client-id", "haapi-demo"])
        #expect(refused.status != 0 && refused.stderr.contains("--answers"))
        let script = try CLIRunner.temporaryDirectory().appendingPathComponent("answers.json")
        try Data(#"[{"choose":"password"},{"fields":{"userName":"demouser","password":"Password1"}}]"#.utf8).write(
            to: script)
        let scripted = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "haapi-demo", "--answers", script.path, "--json",
        ])
        #expect(scripted.status == 0, "\(scripted.stdout) \(scripted.stderr)")
        // The conversation (steps, prompts) goes to stderr; stdout holds exactly the JSON result.
        let parsed = try JSONParser().parse(scripted.stdout)
        #expect(parsed["token_type"] == "DPoP", "\(scripted.stdout)")
        #expect(!scripted.stderr.isEmpty && !scripted.stdout.contains("Username"), "\(scripted.stderr)")
    }
}
