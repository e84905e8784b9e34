import Foundation
import Testing

/// Every command reports a failure the same way: one line on stderr that begins `error: `, in words (never
/// Foundation's "The operation could not be completed"), and one exit code per kind of failure: an input
/// file that cannot be read is 66 in every command.
@Suite("Failure lines and exit codes, the same in every command", .timeLimit(.minutes(2)))
struct FailureLineTests {
    static let missing = "/nonexistent-\(UUID().uuidString)/input.json"
    static let store = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path

    /// Commands that read a file named on the command line, each pointed at `path`.
    static func readers(_ path: String) -> [(name: String, arguments: [String])] {
        let store = Self.store
        return [
            ("inspect", ["inspect", path]),
            ("jwk thumbprint", ["jwk", "thumbprint", path]),
            ("jws verify", ["jws", "verify", "--key", path, "--alg", "ES256", "a.b.c"]),
            ("jws sign", ["jws", "sign", "--key", path, "--alg", "ES256"]),
            ("serve", ["serve", "--config", path, "--port", "0"]),
            (
                "passkey register",
                ["passkey", "register", "--options", path, "--origin", "https://x.example", "--store", store]
            ),
            (
                "passkey authenticate",
                ["passkey", "authenticate", "--options", path, "--origin", "https://x.example", "--store", store]
            ),
            ("demo", ["demo", "--answers", path]),
        ]
    }

    static func expectFailureLine(
        _ result: CLIRunner.Result, code: Int32, mentioning words: String, _ command: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            result.status == code, "\(command): exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation
        )
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("error: "), "\(command): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(words.isEmpty || first.contains(words), "\(command): \(first)", sourceLocation: sourceLocation)
        #expect(
            !result.stderr.contains("could not be completed"), "\(command): \(result.stderr)",
            sourceLocation: sourceLocation)
        #expect(
            !result.stderr.contains("haapi \(command):"), "\(command): \(result.stderr)", sourceLocation: sourceLocation
        )
    }

    @Test("a missing input file: exit 66 and `error: cannot read … no such file` in every command")
    func missingFile() async throws {
        for (name, arguments) in Self.readers(Self.missing) {
            let result = try await CLIRunner.run(arguments, stdin: Data())
            Self.expectFailureLine(result, code: 66, mentioning: Self.missing + ": no such file", name)
        }
    }

    @Test("a folder where a file is expected: exit 66, `it is a folder`")
    func folder() async throws {
        let folder = FileManager.default.temporaryDirectory.path
        for (name, arguments) in Self.readers(folder) {
            let result = try await CLIRunner.run(arguments, stdin: Data())
            Self.expectFailureLine(result, code: 66, mentioning: "it is a folder", name)
        }
    }

    @Test("input that is read but unusable: exit 65 with the reason, still one `error: ` line")
    func badData() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
        try Data("not json".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for (name, arguments) in [
            ("inspect", ["inspect", file.path]), ("jwk thumbprint", ["jwk", "thumbprint", file.path]),
            (
                "passkey register",
                ["passkey", "register", "--options", file.path, "--origin", "https://x.example", "--store", Self.store]
            ),
        ] {
            let result = try await CLIRunner.run(arguments, stdin: Data())
            Self.expectFailureLine(result, code: 65, mentioning: "", name)
        }
        // The dev server's configuration has its own code, sysexits' EX_CONFIG.
        let serve = try await CLIRunner.run(["serve", "--config", file.path, "--port", "0"], stdin: Data())
        Self.expectFailureLine(serve, code: 78, mentioning: "config: ", "serve")
    }

    @Test("usage errors are ArgumentParser's words and code, spelt `error: ` like every other failure")
    func usageError() async throws {
        let result = try await CLIRunner.run(["passkey", "register", "--options", "x.json"], stdin: Data())
        Self.expectFailureLine(result, code: 64, mentioning: "Missing expected argument", "passkey register")
        let help = try await CLIRunner.run(["inspect", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE"), "\(help.stderr)")
    }

    @Test("a secret file that cannot be read is 66 too, before anything is sent")
    func secretFile() async throws {
        let result = try await CLIRunner.run(
            [
                "token", "refresh", "--token-endpoint", "http://127.0.0.1:9/oauth/token", "--client-id", "c",
                "--client-secret-file", Self.missing, "--refresh-token", "r",
            ],
            stdin: Data())
        Self.expectFailureLine(result, code: 66, mentioning: "no such file", "token refresh")
    }

    /// AsyncHTTPClient retries a connection that fails to open until its ten-second connect timeout; the
    /// commands that talk to a named server turn that off, so a mistyped address is reported at once. Shown by
    /// counting: a listener that drops each connection during the TLS handshake sees exactly one (at most two for
    /// a GET, which the SDK asks once more when its connection drops).
    @Test("a server that cannot be connected to is tried once, by every command that talks to one, and reported")
    func connectionTriedOnce() async throws {
        let server = "SERVER"
        for (name, arguments) in [
            ("check", ["check", "--server", server]),
            ("approve", ["approve", "--server", server, "--user", "demouser"]),
            ("passkey signin", ["passkey", "signin", "--rp", server, "--store", Self.store]),
            (
                "token refresh",
                [
                    "token", "refresh", "--token-endpoint", server + "/oauth/token", "--client-id", "c",
                    "--refresh-token", "r",
                ]
            ),
        ] {
            let listener = try await DroppingListener()
            let address = "https://127.0.0.1:\(listener.port)"
            let result = try await CLIRunner.run(
                arguments.map { $0.replacingOccurrences(of: server, with: address) }, stdin: Data())
            await listener.stop()
            // `check` states its request budget first; the failure is the last line in every command.
            let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
            #expect(result.status == 69, "\(name): exit \(result.status): \(result.stderr)")
            #expect(last.hasPrefix("error: ") && last.contains("127.0.0.1"), "\(name): \(result.stderr)")
            // Nothing is sent twice but a GET whose connection dropped: AsyncHTTPClient reports a drop during the
            // TLS handshake either as the handshake's failure (not retried) or as a reset read (a lost answer, asked
            // once more by LostAnswerRetry), as the timing falls.
            let allowed = name == "passkey signin" ? 1...2 : 1...1
            #expect(
                allowed.contains(listener.connections),
                "\(name) opened \(listener.connections) connections: \(result.stderr)")
        }
        // And a port where nothing listens is a refusal in words.
        let refused = try await CLIRunner.run(["check", "--server", "http://127.0.0.1:9"], stdin: Data())
        #expect(refused.stderr.contains("127.0.0.1:9 refused the connection"), "\(refused.stderr)")
    }
}
