import ArgumentParser
import Foundation

/// `haapi`: the command-line face of swift-haapi.
public struct HaapiCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "haapi",
        abstract: "API-driven native login (HAAPI) from the terminal: inspect steps, make DPoP proofs, work with JOSE.",
        discussion: HelpExamples.discussion(
            ExitCodes.helpText, "haapi demo", "haapi serve",
            "haapi login --server http://localhost:8080 --client-id haapi-demo"),
        version: HaapiCommand.version,
        subcommands: [
            DemoCommand.self, ServeCommand.self, LoginCommand.self, TokenCommand.self, PasskeyCommand.self,
            AuthHubCommand.self, ApproveCommand.self, CheckCommand.self, InspectCommand.self, DPoPCommand.self,
            JWKCommand.self, JWSCommand.self,
        ]
    )

    /// The tool's version (`haapi --version`); the project has made no release yet.
    public static let version = "0.1.0-dev"

    public init() {}

    /// The command `typed` was probably meant to be, when it is not one: the closest name within two edits.
    static func suggestion(for typed: String) -> String? {
        let names = configuration.subcommands.compactMap { $0.configuration.commandName }
        guard !typed.hasPrefix("-"), !names.contains(typed) else { return nil }
        let scored = names.map { (name: $0, distance: editDistance(typed.lowercased(), $0)) }.min {
            $0.distance < $1.distance
        }
        guard let best = scored, best.distance <= 2 else { return nil }
        return best.name
    }

    /// Levenshtein distance between two short words.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// `haapi` alone: what the tool does, by task (`--help` has every option).
    public func run() async throws {
        print(Self.overview)
    }

    static let overview = """
        haapi \(version): API-driven native login (HAAPI) from the terminal.

          Get started      demo                  the dev server and an interactive login, in one command
          Log in           login, token          a HAAPI login; then refresh, revoke, introspect
          Run a server     serve, approve        the dev identity server; approve a pending sign-in
          Check a server   check                 diagnose any HAAPI / OAuth + DPoP server, with fixes
          Passkeys         passkey, authhub      software passkeys; an Authentication Hub sign-in
          Look at the wire inspect, dpop, jwk, jws

        Run `haapi <command> --help` for a command's options and examples, `haapi --help` for exit codes.
        """
}

extension HaapiCommand {
    /// Parses the process arguments and runs the chosen command, awaiting async ones.
    ///
    /// Called from the executable's top-level code, where overload resolution would otherwise pick
    /// the synchronous `main()` of `ParsableCommand`.
    public static func runFromCommandLine() async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            if let typed = CommandLine.arguments.dropFirst().first, let suggestion = suggestion(for: typed) {
                CLIFailure("unknown command '\(typed)'. Did you mean 'haapi \(suggestion)'?", code: ExitCodes.usage)
                    .exit()
            }
            exitParsing(error)
        }
        do {
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch  where String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            // Help, version, usage and validation errors, exit codes: ArgumentParser's words and codes.
            exitParsing(error)
        } catch {
            // Everything else is a failure of what the command did: one line in words, a classified exit code.
            CLIFailure.classify(error).exit()
        }
    }

    /// ArgumentParser's message and exit code for `error`, with the failure line spelt as every other
    /// failure of the tool (`error: …`, lower case); help and version are printed by ArgumentParser itself.
    private static func exitParsing(_ error: any Error) -> Never {
        let code = exitCode(for: error)
        guard code != .success else { exit(withError: error) }
        let message = fullMessage(for: error)
        if !message.isEmpty {
            StandardStreams.printError(message.hasPrefix("Error: ") ? "error: " + message.dropFirst(7) : message)
        }
        Foundation.exit(code.rawValue)
    }
}
