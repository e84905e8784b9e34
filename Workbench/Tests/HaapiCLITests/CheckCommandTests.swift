import ChildProcesses
import Foundation
@_spi(Tooling) import HaapiModel
import Hummingbird
import NIOCore
import Testing

/// `haapi check` (issue 33) against the dev server: no error with its default configuration; a protection
/// switched off in the configuration is reported by its own finding and nothing else turns red; a server that
/// does not speak OAuth, or is not there, is one clear error with exit code 69.
@Suite("haapi check", .timeLimit(.minutes(3)))
struct CheckCommandTests {
    static func startServer(_ arguments: [String] = []) async throws -> (ChildProcess, String) {
        let (process, output) = try CLIRunner.start(["serve", "--port", "0"] + arguments)
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") }).description
        return (process, base)
    }

    /// A file holding `content`, as `--password-file` and `--client-secret-file` read it.
    static func secretFile(_ content: String) throws -> URL {
        let file = try CLIRunner.temporaryDirectory().appendingPathComponent("secret")
        try Data(content.utf8).write(to: file)
        return file
    }

    static func findings(_ result: CLIRunner.Result) throws -> [JSONValue] {
        try #require(try JSONParser().parse(result.stdout)["findings"]?.arrayValue, "\(result.stdout) \(result.stderr)")
    }

    @Test("the dev server's default configuration: no error; every DPoP attack refused; HAAPI steps decode")
    func devServer() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let password = try Self.secretFile("Password1\n")
        let result = try await CLIRunner.run([
            "check", "--server", base, "--json", "--username", "demouser", "--password-file", password.path,
        ])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let findings = try Self.findings(result)
        // Each finding as "id severity": a rule's id with its outcome.
        let ids = Set(
            findings.compactMap { finding in
                finding["id"]?.stringValue.map { "\($0) \(finding["severity"]?.stringValue ?? "")" }
            })
        #expect(findings.allSatisfy { $0["severity"]?.stringValue != "error" }, "\(result.stdout)")
        for id in [
            "discovery.issuer-mismatch pass", "discovery.endpoints-served pass", "discovery.jwks pass",
            "discovery.pkce-s256 pass", "dpop.nonce-missing pass", "dpop.fresh-accepted pass",
            "dpop.token-not-bound pass", "dpop.replay pass", "dpop.htm-mismatch pass", "dpop.htu-mismatch pass",
            "dpop.iat-window pass", "dpop.alg pass", "dpop.jwk pass", "dpop.nonce-unknown pass", "haapi.token pass",
            "haapi.steps pass", "haapi.parts-known pass", "haapi.actions-off-origin pass", "haapi.session-header pass",
            "haapi.session-missing pass", "oauth.pkce-missing pass", "oauth.pkce-plain pass", "oauth.redirect-uri pass",
            "oauth.pkce-mismatch pass", "oauth.introspection-open pass", "oauth.refresh-rotation pass",
            "oauth.refresh-reused info", "oauth.refresh-reused pass", "oauth.revocation pass", "oauth.code-reused pass",
            "dpop.typ pass", "dpop.signature pass", "dpop.ath-missing pass", "dpop.ath-mismatch pass",
        ] {
            #expect(ids.contains(id), "missing \(id): \(ids.sorted())")
        }
        // Both alg attacks (none and HS256) are reported, under the one rule; the iat window both ways.
        #expect(findings.filter { $0["id"]?.stringValue == "dpop.alg" }.count == 2)
        #expect(findings.filter { $0["id"]?.stringValue == "dpop.iat-window" }.count == 2)
        // Nothing inconclusive against a server that answers every request.
        #expect(!findings.contains { $0["title"]?.stringValue?.hasPrefix("Inconclusive") == true }, "\(result.stdout)")
        let report = try JSONParser().parse(result.stdout)
        let used = try #require(report["requests"]?.numberValue?.intValue)
        #expect(used <= (report["budget"]?.numberValue?.intValue ?? 0) && used > 10)
        // The table: a line per group, the total, no secrets.
        let table = try await CLIRunner.run([
            "check", "--server", base, "--username", "demouser", "--password-file", password.path,
        ])
        #expect(table.status == 0 && table.stdout.contains("0 errors"), "\(table.stdout)")
        #expect(table.stdout.contains("hygiene     ") && !table.stdout.contains("not run"), "\(table.stdout)")
        #expect(table.stderr.contains("at most 120 requests"))
        for output in [table.stdout, table.stderr, result.stdout] {
            #expect(
                !output.contains("eyJ") && !output.contains("Password1"), "a token or the password reached the report")
        }
        // Without a user the hygiene group says what it needs.
        let anonymous = try await CLIRunner.run(["check", "--server", base, "--only", "hygiene", "--json"])
        #expect(try Self.findings(anonymous).compactMap { $0["id"]?.stringValue } == ["hygiene.no-login"])
    }

    @Test("a client without nonces: its own finding (a warning), nothing red; --only runs one group")
    func protectionOff() async throws {
        let configuration = try await CLIRunner.run(["serve", "--print-default-config"])
        var json = try JSONParser().parse(configuration.stdout)
        guard case .object(var object) = json, case .array(var clients)? = object["clients"] else {
            Issue.record("no clients in the default configuration")
            return
        }
        clients.append([
            "id": "no-nonce", "attestation": "software", "redirectURIs": ["app://haapi"], "scopes": ["openid"],
        ])
        object["clients"] = .array(clients)
        json = .object(object)
        let file = try CLIRunner.temporaryDirectory().appendingPathComponent("config.json")
        try Data(json.serialized().utf8).write(to: file)
        let (server, base) = try await Self.startServer(["--config", file.path])
        defer { server.terminate() }
        let result = try await CLIRunner.run([
            "check", "--server", base, "--client-id", "no-nonce", "--only", "dpop", "--json",
        ])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let findings = try Self.findings(result)
        let warnings = findings.filter { $0["severity"]?.stringValue == "warning" }.compactMap { $0["id"]?.stringValue }
        #expect(warnings == ["dpop.nonce-missing"], "\(warnings)")
        #expect(findings.allSatisfy { $0["group"]?.stringValue == "dpop" })
        #expect(findings.allSatisfy { $0["severity"]?.stringValue != "error" })
        #expect(
            findings.contains { $0["id"]?.stringValue == "dpop.replay" && $0["severity"]?.stringValue == "pass" })
    }

    @Test(
        "on a terminal: the budget, a progress line per group as it finishes, then the table",
        .enabled(if: PseudoTerminal.isAvailable, "needs util-linux script and a built haapi"))
    func progressOnTerminal() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let terminal = try PseudoTerminal(["check", "--server", base])
        try await terminal.waitFor("\\[exit (\\d+)\\]")
        let screen = terminal.screen.replacingOccurrences(of: "\r", with: "")
        #expect(screen.contains("[exit 0]"), "\(screen)")
        let lines = screen.split(separator: "\n").map(String.init)
        // Progress lines are indented and come before the table's own (unindented) summary lines.
        for group in ["discovery", "dpop", "haapi", "hygiene"] {
            let name = group.padding(toLength: 10, withPad: " ", startingAt: 0) + "  "
            let progress = try #require(lines.firstIndex { $0.hasPrefix("  " + name) }, "\(screen)")
            let summary = try #require(lines.firstIndex { $0.hasPrefix(name) }, "\(screen)")
            #expect(progress < summary && progress > 0)
        }
        #expect(lines.first?.contains("at most 120 requests") == true, "\(screen)")
    }

    @Test("a run cut short by its budget: one warning, no error the cut caused, within the budget")
    func budget() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let password = try Self.secretFile("Password1\n")
        // 65 stops inside the hygiene group (a whole run takes 74), after its first login.
        let result = try await CLIRunner.run([
            "check", "--server", base, "--json", "--username", "demouser", "--password-file", password.path,
            "--max-requests", "65",
        ])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        let report = try JSONParser().parse(result.stdout)
        let red = try Self.findings(result).filter { ["error", "warning"].contains($0["severity"]?.stringValue) }
        #expect(red.compactMap { $0["id"]?.stringValue } == ["check.budget"], "\(result.stdout)")
        let used = try #require(report["requests"]?.numberValue?.intValue)
        #expect(used <= 65 && used > 50, "\(used)")
    }

    @Test("a confidential client's opaque token: its binding read from introspection")
    func opaqueTokenBinding() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let secret = try Self.secretFile("authhub-secret-change-me")
        let result = try await CLIRunner.run([
            "check", "--server", base, "--client-id", "authhub-app", "--client-secret-file", secret.path, "--scope",
            "urn:iam:myscopes", "--only", "dpop", "--json",
        ])
        let findings = try Self.findings(result)
        let bound = try #require(
            findings.first { $0["id"]?.stringValue == "dpop.token-not-bound" && $0["severity"]?.stringValue == "pass" },
            "\(result.stdout)")
        #expect(bound["title"]?.stringValue?.hasPrefix("Introspection") == true)
        // This client has no nonces configured: that warning, and no error.
        #expect(findings.allSatisfy { $0["severity"]?.stringValue != "error" }, "\(result.stdout)")
    }

    @Test("a plain web server is one clear error with exit 69; so is a port where nothing listens")
    func notOAuth() async throws {
        // A web server that is not OAuth: a page at /, 404 everywhere else (as a static site answers).
        let web = try await LoopbackHTTPServer { request in
            request.uri.path == "/"
                ? Response(
                    status: .ok, headers: [.contentType: "text/html"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: "<html><body>Hello</body></html>")))
                : Response(status: .notFound)
        }
        defer { web.stop() }
        let result = try await CLIRunner.run(["check", "--server", "http://127.0.0.1:\(web.port)"])
        #expect(result.status == 69, "\(result.stdout)\n\(result.stderr)")
        // The stated request budget, then one error line, and no report.
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains("at most 120 requests"), "\(result.stderr)")
        #expect(
            lines.last?.hasPrefix("error: ") == true && result.stderr.contains("does not speak OAuth"),
            "\(result.stderr)")
        #expect(result.stdout.isEmpty)

        let nobody = try await CLIRunner.run(["check", "--server", "http://127.0.0.1:9"])
        #expect(nobody.status == 69 && nobody.stderr.contains("error: "), "\(nobody.stderr)")
        let usage = try await CLIRunner.run(["check", "--server", "http://127.0.0.1:9", "--only", "everything"])
        #expect(usage.status == 64 && usage.stderr.hasPrefix("error: "), "\(usage.stderr)")
    }
}
