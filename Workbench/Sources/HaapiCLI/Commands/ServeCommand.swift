import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the dev identity server (HAAPI, OAuth with DPoP, attestation, DCR).",
        discussion: HelpExamples.discussion(
            "Binds 127.0.0.1 unless told otherwise. With no flags: an in-memory database and the embedded demo configuration.",
            "haapi serve", "haapi serve --port 0 --db haapi.sqlite",
            "haapi serve --print-default-config > server.json && haapi serve --config server.json",
            "haapi serve --public-url https://login.example.com")
    )

    @Option(
        name: .long,
        help: "Port to listen on (0 picks a free one). 8080 by default: plain HTTP, so not the TLS port 8443.")
    var port: Int = 8080

    @Option(name: .long, help: "Address to bind. Anything but loopback exposes a development server to the network.")
    var host: String = "127.0.0.1"

    @Option(
        name: .customLong("public-url"),
        help: ArgumentHelp(
            "The URL clients reach the server at (the issuer, and what DPoP proofs' htu must name): a proxy's URL, or this machine's name or address when a phone or another host signs in. Default: http://localhost:PORT when bound to loopback, so browsers accept passkeys.",
            valueName: "url"))
    var publicURL: String?

    @Option(name: .long, help: "SQLite database file; in memory when omitted.")
    var db: String?

    @Option(name: .long, help: "Configuration file (JSON); the embedded default when omitted.")
    var config: String?

    @Flag(name: .long, help: "Print the embedded default configuration and exit.")
    var printDefaultConfig = false

    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp(
            "How each refused request is printed: text (one line for people) or json (one object a line, for tools).",
            valueName: "text|json"))
    var logFormat: RequestLogOptions.Format = .text

    @Flag(name: .long, help: "Also print one short line for every accepted request.")
    var verbose = false

    func validate() throws {
        // Larger numbers would wrap around to some other port.
        guard (0...65_535).contains(port) else {
            throw ValidationError("--port must be 0…65535 (0 picks a free one), not \(port)")
        }
        if let publicURL, URL(string: publicURL)?.host == nil {
            throw ValidationError("--public-url must be an absolute URL such as https://login.example.com")
        }
    }

    func run() async throws {
        if printDefaultConfig {
            print(ServerConfiguration.defaultJSON)
            return
        }
        let configuration: ServerConfiguration
        let json = try config.map { try StandardStreams.read($0, what: "configuration file") }
        do {
            configuration = try json.map(ServerConfiguration.load(json:)) ?? ServerConfiguration.embeddedDefault
        } catch let error as ConfigurationError {
            // One line that names the place in the file: `config: authenticators[2].steps[0].fields[1].accept: …`.
            throw CLIFailure(
                "config: \(error.detail)\(config.map { " (in \($0))" } ?? "")", code: ExitCodes.configuration)
        }
        // Every line goes through one writer thread: a reader that stops reading (a paused terminal) or goes away
        // never holds up or ends the server.
        let output = LineWriter()
        let server = try DevServer(
            configuration: configuration, store: ServerStore(path: db),
            requestLog: RequestLogOptions(format: logFormat, verbose: verbose, write: { output.write($0) }))
        let running: RunningDevServer
        do {
            running = try await server.start(
                host: host, port: port, publicURL: publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 },
                loopbackName: "localhost", stopsOnSignals: true)
        } catch let error as ServerStartError {
            throw CLIFailure(
                "Cannot listen on \(host):\(port): the port is in use or not allowed. Choose another with --port (0 picks a free one).",
                details: error.description)
        }
        // Written straight to the descriptor: print() would sit in a buffer when stdout is a pipe or file.
        for line in ServeSummary.text(for: server, database: db).split(
            separator: "\n", omittingEmptySubsequences: false)
        {
            output.write(String(line))
        }
        // SIGTERM or SIGINT: no new connection, requests in flight finish (at most 5 s), then the database is
        // closed and the command ends with 0.
        try await running.wait()
        try server.close()
        output.write("haapi serve: stopped")
        output.flush()
    }
}

/// The one-screen summary `haapi serve` prints: where things are and how to sign in.
enum ServeSummary {
    static func text(for server: DevServer, database: String?) -> String {
        let base = server.issuer
        var lines = [
            "swift-haapi dev server on \(base)  (\(database.map { "database \($0)" } ?? "in-memory database"))",
            "",
            "  discovery      \(base)/.well-known/openid-configuration",
            "  authorize      \(base)/oauth/authorize   (HAAPI: Accept application/vnd.auth+json)",
            "  token          \(base)/oauth/token        CAT: \(base)/oauth/token/cat",
            "  revoke         \(base)/oauth/revoke       introspect: \(base)/oauth/introspect",
            "  register (DCR) \(base)/oauth/register",
            "  passkey app    \(base)/passkeys           (open in a browser; front page \(base)/)",
            "",
            "  clients:",
        ]
        for client in server.configuration.clients {
            var traits: [String] = []
            if let attestation = client.attestation { traits.append("attestation \(attestation.rawValue)") }
            if client.tokenBoundCodes { traits.append("token-bound codes") }
            if client.dpopNonce { traits.append("DPoP nonces") }
            if client.isConfidential { traits.append(client.authenticationMethod.rawValue) }
            if client.dcrTemplate != nil { traits.append("DCR template") }
            if !client.redirectURIs.isEmpty { traits.append("redirect \(client.redirectURIs.joined(separator: ", "))") }
            lines.append("    \(client.id): \(traits.joined(separator: "; "))")
        }
        // Passwords are never printed, except the documented demo user's from the embedded configuration.
        let demo = (try? ServerConfiguration.embeddedDefault.users) ?? []
        lines.append(
            "  users: "
                + server.configuration.users.map { user in
                    demo.contains(user)
                        ? "\(user.username) / \(ServerConfiguration.demoPassword) (demo password)" : user.username
                }.joined(separator: ", "))
        lines.append(
            "  authenticators: "
                + server.configuration.authenticators.map { "\($0.id) (\($0.type.rawValue))" }.joined(separator: ", "))
        lines.append("")
        // The local-only pages answer this machine's loopback address only, never the public URL (a proxy).
        let local = server.localURL
        lines.append(
            "  approve a pending sign-in: haapi approve --server \(local) --user NAME   outbox: \(local)/admin/outbox")
        lines.append(
            "  admin endpoints and inspector: this machine only, at \(local) (no proxy, no foreign Origin; docs/SECURITY.md)"
        )
        lines.append("  inspector: \(local)/inspector   (the recent flows and requests; each refusal is printed below)")
        lines.append("  Ctrl-C (or SIGTERM) stops the server: requests in flight finish first.")
        return lines.joined(separator: "\n")
    }
}

extension RequestLogOptions.Format: ExpressibleByArgument {}
