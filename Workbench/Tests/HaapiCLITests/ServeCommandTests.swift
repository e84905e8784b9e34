import ArgumentParser
import Foundation
import HaapiCLI
@_spi(Tooling) import HaapiModel
import Testing

@Suite("haapi serve and haapi approve")
struct ServeCommandTests {
    @Test("--print-default-config prints the embedded configuration")
    func printDefaultConfig() async throws {
        let result = try await CLIRunner.run(["serve", "--print-default-config"])
        #expect(result.status == 0)
        let configuration = try JSONParser().parse(result.stdout)
        #expect(configuration["users"]?[0]?["username"] == "demouser")
        #expect(configuration["clients"]?[0]?["id"] == "haapi-demo")
    }

    @Test("a bad configuration file is one `error: config:` line and exit 78")
    func badConfig() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("bad.json")
        try Data(
            #"{"clients":[{"id":"a"},{"id":"a"}],"authenticators":[{"id":"p","type":"username-password","title":"P"}]}"#
                .utf8
        ).write(to: file)
        let result = try await CLIRunner.run(["serve", "--config", file.path, "--port", "0"])
        #expect(result.status == 78)
        #expect(result.stderr.contains("error: config: client \"a\" is defined twice"), "\(result.stderr)")

        let pattern = directory.appendingPathComponent("pattern.json")
        try Data(
            #"{"clients":[],"users":[{"username":"u","password":"p"}],"authenticators":[{"id":"p","type":"passkeys","title":"P"},{"id":"e","type":"email-otp","title":"E"},{"id":"f","type":"form","title":"F","user":"u","steps":[{"title":"T","fields":[{"name":"a","type":"text"},{"name":"otp","type":"text","accept":"([0-9"}]}]}]}"#
                .utf8
        ).write(to: pattern)
        let refused = try await CLIRunner.run(["serve", "--config", pattern.path, "--port", "0"])
        #expect(refused.status == 78)
        let lines = refused.stderr.split(separator: "\n")
        #expect(
            lines.count == 1
                && lines[0].hasPrefix(
                    "error: config: authenticators[2].steps[0].fields[1].accept: the regular expression \"([0-9\" does not compile"
                ),
            "\(refused.stderr)")

        // A typo and a trailing comma: one line each, with the place and what was meant.
        for (text, expected) in [
            (
                #"{"clients":[],"users":[],"authenticators":[{"id":"p","type":"passkeys","title":"P","tilte":"x"}]}"#,
                #"error: config: authenticators[0].tilte: unknown key "tilte"; did you mean "title"?"#
            ),
            (
                "{\"clients\": [],\n \"authenticators\": [],\n}",
                "error: config: not valid JSON at line 3, column 1"
            ),
        ] {
            let typo = directory.appendingPathComponent("typo.json")
            try Data(text.utf8).write(to: typo)
            let answer = try await CLIRunner.run(["serve", "--config", typo.path, "--port", "0"])
            let said = answer.stderr.split(separator: "\n")
            #expect(answer.status == 78 && said.count == 1 && said[0].hasPrefix(expected), "\(answer.stderr)")
        }
    }

    @Test("each configuration in Examples/flows starts haapi serve, whose summary lists its authenticators")
    func exampleFlows() async throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/flows")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".json") }
        #expect(files.count == 6, "\(files)")
        for file in files.sorted() {
            let path = directory.appendingPathComponent(file).path
            let listed =
                try JSONParser().parse(try Data(contentsOf: URL(fileURLWithPath: path)))["authenticators"]?
                .arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            let (process, output) = try CLIRunner.start(["serve", "--config", path, "--port", "0"])
            defer { process.terminate() }
            let line = try await CLIRunner.waitForLine(containing: "authenticators:", in: output, timeout: 30)
            #expect(!listed.isEmpty && listed.allSatisfy { line.contains($0) }, "\(file): \(line)")
        }
    }

    @Test("serve prints its summary and answers on loopback; approve reports when nothing is pending")
    func serveAndApprove() async throws {
        let (process, output) = try CLIRunner.start(["serve", "--port", "0"])
        defer { process.terminate() }
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") }).description
        let all = try await CLIRunner.waitForLine(containing: "users:", in: output)
        #expect(all.contains("demouser"))
        let approve = try await CLIRunner.run(["approve", "--server", base, "--user", "demouser"])
        #expect(approve.status == 1)
        #expect(approve.stderr.contains("no pending sign-in for demouser"))
    }

    @Test(
        "serve never prints a user's password, except the documented demo user's; the file's secrets stay in the file")
    func noPasswordsPrinted() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("users.json")
        var configuration = try JSONParser().parse(try await CLIRunner.run(["serve", "--print-default-config"]).stdout)
        guard case .object(var object) = configuration, case .array(var users)? = object["users"] else {
            Issue.record("no users")
            return
        }
        users.append(["username": "alice", "password": "Alice-s3cret-pw", "email": "alice@example.com"])
        object["users"] = .array(users)
        configuration = .object(object)
        try Data(configuration.serialized().utf8).write(to: file)
        let (process, output) = try CLIRunner.start(["serve", "--config", file.path, "--port", "0"])
        defer { process.terminate() }
        let line = try await CLIRunner.waitForLine(containing: "users:", in: output)
        #expect(line.contains("alice") && line.contains("demouser / Password1"))
        _ = try await CLIRunner.waitForLine(containing: "Ctrl-C", in: output)
        let everything = try String(contentsOf: output, encoding: .utf8)
        #expect(!everything.contains("Alice-s3cret-pw"))
    }

    @Test("haapi --version prints the version; completion scripts are generated for bash, zsh and fish")
    func versionAndCompletions() async throws {
        let version = try await CLIRunner.run(["--version"])
        #expect(version.status == 0 && version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0-dev")
        for shell in ["bash", "zsh", "fish"] {
            let script = try await CLIRunner.run(["--generate-completion-script", shell])
            #expect(
                script.status == 0 && script.stdout.contains("haapi") && script.stdout.contains("serve"), "\(shell)")
        }
    }

    @Test(
        "serve: a port out of range is a usage error (64); a port in use is a clear one-line error; --help lists the exit codes"
    )
    func portsAndExitCodes() async throws {
        let outOfRange = try await CLIRunner.run(["serve", "--port", "70000"])
        #expect(outOfRange.status == 64 && outOfRange.stderr.contains("--port must be 0…65535"), "\(outOfRange.stderr)")

        let (server, base) = try await LoginAndTokenCommandTests.startServer()
        defer { server.terminate() }
        let port = try #require(URL(string: base)?.port)
        let taken = try await CLIRunner.run(["serve", "--port", String(port)])
        #expect(
            taken.status == 1 && taken.stderr.hasPrefix("error: Cannot listen on 127.0.0.1:\(port)"), "\(taken.stderr)")
        #expect(taken.stderr.split(separator: "\n").count == 1, "one line: \(taken.stderr)")

        let help = try await CLIRunner.run(["--help"])
        #expect(help.stdout.contains("69 server unavailable") && help.stdout.contains("77 refused"), "\(help.stdout)")
    }
}

@Suite("haapi help")
struct HelpTests {
    /// Every command and subcommand, found from the root's configuration.
    static func allCommands(
        _ command: any ParsableCommand.Type = HaapiCommand.self, path: [String] = []
    ) -> [(String, any ParsableCommand.Type)] {
        let name = command.configuration.commandName ?? String(describing: command).lowercased()
        let here = path + [name]
        return [(here.joined(separator: " "), command)]
            + command.configuration.subcommands.flatMap { allCommands($0, path: here) }
    }

    @Test("every command's --help has an Examples section; haapi alone prints the overview by task")
    func examplesAndOverview() async throws {
        let commands = Self.allCommands()
        #expect(commands.count >= 20)
        for (name, command) in commands {
            #expect(command.configuration.discussion.contains("Examples:\n  $ "), "\(name) has no examples")
        }
        let help = try await CLIRunner.run(["token", "refresh", "--help"])
        #expect(
            help.stdout.contains("Examples:") && help.stdout.contains("$ haapi token refresh --session"),
            "\(help.stdout)")
        let typo = try await CLIRunner.run(["lgin"])
        #expect(typo.status == 64 && typo.stderr.contains("Did you mean 'haapi login'?"), "\(typo.stderr)")
        let overview = try await CLIRunner.run([])
        #expect(
            overview.status == 0 && overview.stdout.contains("Get started") && overview.stdout.contains("Log in"),
            "\(overview.stdout)")
    }
}
