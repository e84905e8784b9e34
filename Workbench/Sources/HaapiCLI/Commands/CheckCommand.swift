import ArgumentParser
import Foundation
import HaapiCheck
import HaapiRules
@_spi(Tooling) import HaapiSdk
import HaapiServer

/// `haapi check`: points what the SDK knows at any HAAPI or OAuth + DPoP server and reports what it finds,
/// with the fix for each finding (docs/CHECK.md).
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Diagnose a HAAPI / OAuth + DPoP server from the outside, with the fix for each finding.",
        discussion: HelpExamples.discussion(
            """
            Runs bounded groups of checks (discovery, dpop, haapi, hygiene) and prints a table, or one JSON \
            object with --json. The hygiene group logs in as --username (password from --password-file or \
            $HAAPI_PASSWORD) to check codes, PKCE, redirect URIs, refresh rotation and revocation. It sends at \
            most --max-requests requests (printed first), no brute force, and writes nothing but the tokens it \
            obtains, which it revokes at the end. Exit code 0 with no errors, 1 with errors, 69 when the server \
            cannot be reached or does not speak OAuth, 64 for usage errors.
            """,
            "haapi check --server http://localhost:8080 --username demouser --password-file pw.txt",
            "haapi check --server https://login.example.com --client-id my-app --only discovery,dpop --json",
            "haapi check --server https://login.example.com --client-id backend --client-secret-file secret.txt")
    )

    @Option(name: .long, help: "The server's base URL (its issuer).")
    var server: String

    @OptionGroup var client: ClientOptions

    @Option(name: .long, help: "The redirect URI registered for the client (HAAPI group).")
    var redirectUri = "app://haapi"

    @Option(
        name: .long,
        help: "Scopes, space-separated: the HAAPI flow's (openid when not given), and the client credentials grant's.")
    var scope: String?

    @Option(name: .long, help: "Only these groups, comma-separated: discovery, dpop, haapi, hygiene.")
    var only: String?

    @Option(name: .long, parsing: .unconditional, help: "A test user, for the hygiene group's logins.")
    var username: String?

    @Option(name: .long, help: "A file holding --username's password (- reads standard input; or $HAAPI_PASSWORD).")
    var passwordFile: String?

    @Option(name: .long, help: "The authenticator the hygiene group's logins choose.")
    var authenticator = "password"

    @Flag(name: .long, help: "Print one JSON object instead of the table.")
    var json = false

    @Option(name: .long, help: "The most requests the run may send.")
    var maxRequests = 120

    func validate() throws {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--server must be an http(s) URL such as http://localhost:8080")
        }
        _ = try groups()
        guard (10...1000).contains(maxRequests) else { throw ValidationError("--max-requests must be 10…1000") }
        if passwordFile != nil, username == nil { throw ValidationError("--password-file goes with --username") }
    }

    func groups() throws -> [CheckGroup] {
        guard let only else { return CheckGroup.allCases }
        return try only.split(separator: ",").map { name in
            guard let group = CheckGroup(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError(
                    "--only: unknown group \(name); the groups are "
                        + CheckGroup.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return group
        }
    }

    func run() async throws {
        guard let base = URL(string: server) else { throw ValidationError("--server must be a URL") }
        let groups = try groups()
        let clientID = client.clientId ?? "haapi-demo"
        let method = try client.authenticationMethod()
        let password =
            try username == nil
            ? nil
            : SecretInput.resolve(value: nil, file: passwordFile, environment: "HAAPI_PASSWORD", option: "--password")
        if username != nil, password == nil {
            throw ValidationError("--username needs a password: --password-file FILE or $HAAPI_PASSWORD")
        }
        let http = CheckHTTP(transport: commandTransport(timeout: 15), server: base, budget: maxRequests)
        if !json {
            StandardStreams.printError(
                "haapi check \(server): at most \(maxRequests) requests; tokens it obtains are revoked at the end")
        }
        var findings: [CheckFinding] = []
        let secret = try client.resolvedClientSecret
        var revocationEndpoint: URL?
        do {
            // Discovery runs always: the other groups need its endpoints (its findings only when asked for).
            var discoveryFindings: [CheckFinding] = []
            let discovered = try await DiscoveryChecks(server: base, http: http).run(&discoveryFindings)
            revocationEndpoint = discovered.revocationEndpoint
            if groups.contains(.discovery) { findings += discoveryFindings }
            progress(.discovery, findings, groups)
            var fresh: String?
            // A group named in --only that cannot run is an error: nothing was checked of what was asked.
            let skipSeverity: CheckFinding.Severity = only == nil ? .info : .error
            if groups.contains(.dpop), discovered.blocks(.dpop) {
                findings.append(Self.offOriginSkip(.dpop, severity: skipSeverity))
            } else if groups.contains(.dpop) {
                let grant: CheckGrant =
                    if let secret {
                        .clientSecret(clientID: clientID, secret: secret, scope: scope)
                    } else { .attestation(clientID: clientID) }
                var dpop = DPoPChecks(
                    token: discovered.tokenEndpoint, grant: grant, http: http,
                    introspection: discovered.introspectionEndpoint)
                try await dpop.run(&findings)
                fresh = dpop.fresh
                progress(.dpop, findings, groups)
            }
            let checkClient = CheckClient(
                server: base, discovered: discovered, clientID: clientID, method: method, secret: secret,
                redirectURI: redirectUri,
                scope: (scope ?? "openid").split(separator: " ").map(String.init), http: http)
            for group in [CheckGroup.haapi, .hygiene] where groups.contains(group) {
                guard await !http.stopped else { break }
                let before = findings.count
                if discovered.blocks(group) {
                    findings.append(Self.offOriginSkip(group, severity: skipSeverity))
                } else if let cause = Self.blocker(of: group, in: findings) {
                    findings.append(
                        CheckFinding(
                            id: "\(group.rawValue).skipped", group: group, severity: skipSeverity,
                            title: "Not run: it needs what \(cause.id) reports missing", reference: cause.reference,
                            fix: skipSeverity == .error ? "fix what \(cause.id) reports, then run it again" : nil))
                } else if group == .haapi {
                    await HaapiChecks(client: checkClient).run(&findings)
                } else {
                    // Without a HAAPI login the group checks what it can with the DPoP group's token.
                    let noHaapi = findings.first { ["haapi.absent", "haapi.token-refused"].contains($0.id) }
                    await HygieneChecks(
                        client: checkClient, username: username, password: password, authenticator: authenticator,
                        loginImpossible: noHaapi?.id, token: fresh
                    ).run(&findings)
                }
                // The SDK meets the budget as a failed request: what failed after it is the budget's doing.
                if await http.stopped {
                    let kept = findings[before...].filter { $0.severity == .pass }
                    findings.removeSubrange(before...)
                    findings += kept
                }
                progress(group, findings, groups)
            }
        } catch is CheckHTTP.BudgetExhausted {
            // Reported below: the SDK's requests meet the budget as a transport failure, not this error.
        } catch let error as TransportError {
            throw CLIFailure(
                ErrorSentence.make("The server could not be reached", error.description), code: ExitCodes.unavailable)
        }
        // Also after a run cut short: what was obtained is revoked, within the requests kept for it.
        await revoke(await http.issued, at: revocationEndpoint, clientID: clientID, secret: secret, http: http)
        if await http.stopped {
            findings.append(
                CheckFinding(
                    id: "check.budget", group: .discovery, severity: .warning,
                    title:
                        "The run stopped at its budget of \(maxRequests) requests (less \(http.reserve) kept for revoking what it obtained); the checks after that did not run",
                    reference: "docs/CHECK.md",
                    fix: "raise --max-requests, or run fewer groups with --only"))
        }
        if Self.notOAuth(findings) {
            throw CLIFailure(
                "\(server) does not speak OAuth: no discovery document, and its token endpoint answers no OAuth errors. Check --server.",
                code: ExitCodes.unavailable)
        }
        let report = CheckReport(server: server, findings: findings, requests: await http.used, budget: maxRequests)
        print(json ? report.json.serialized() : report.text(groups: groups))
        if report.errors > 0 { throw ExitCode(1) }
    }

    /// A finding that makes `group` pointless: the SDK cannot work without the DPoP nonces it is told.
    /// Reported once, as its cause, rather than as a cascade of errors.
    static func blocker(of group: CheckGroup, in findings: [CheckFinding]) -> CheckFinding? {
        let clientRefused = Rule.clientAuthentication.id
        return findings.first { finding in
            if finding.id == "dpop.nonce-header-missing" { return true }
            if finding.id == clientRefused, finding.severity == .error { return true }
            return group == .hygiene && finding.id == "haapi.configuration"
        }
    }

    /// A group not run because an endpoint it needs is on another origin than the issuer's: information in a
    /// full run, an error when the group was asked for by name.
    static func offOriginSkip(_ group: CheckGroup, severity: CheckFinding.Severity) -> CheckFinding {
        CheckFinding(
            id: "\(group.rawValue).skipped", group: group, severity: severity,
            title: "Not run: an endpoint it needs is on another origin (discovery.endpoints-off-origin)",
            reference: "RFC 8414 §2",
            fix: severity == .error
                ? "the check sends nothing to another origin: run it against the server whose endpoints these are" : nil
        )
    }

    /// No discovery document, and nothing else that answered as OAuth: not an OAuth server (or the wrong URL).
    static func notOAuth(_ findings: [CheckFinding]) -> Bool {
        let silent: Set<String> = [
            "dpop.no-grant", "dpop.not-oauth", "haapi.absent", "hygiene.skipped", "hygiene.no-login",
        ]
        return findings.contains { $0.id == "discovery.missing" }
            && findings.filter { $0.group != .discovery }.allSatisfy { silent.contains($0.id) }
    }

    /// A line per finished group on a terminal (a pipe gets the report only).
    private func progress(_ group: CheckGroup, _ findings: [CheckFinding], _ groups: [CheckGroup]) {
        guard !json, groups.contains(group), isatty(STDERR_FILENO) == 1 else { return }
        StandardStreams.printError(
            "  " + CheckReport(server: server, findings: findings, requests: 0, budget: 0).summary(of: group))
    }

    /// RFC 7009: the tokens the run obtained are revoked, as the client that obtained them.
    private func revoke(
        _ tokens: [String], at endpoint: URL?, clientID: String, secret: String?, http: CheckHTTP
    ) async {
        guard let endpoint else { return }
        for token in tokens {
            var headers: [(name: String, value: String)] = [("Content-Type", MimeTypes.formURLEncoded)]
            var form = [("token", token), ("token_type_hint", "access_token")]
            if let secret {
                headers.append(CheckClient.basic(id: clientID, secret: secret))
            } else {
                form.append(("client_id", clientID))
            }
            _ = try? await http.sendCleanup(
                HTTPRequest(
                    method: "POST", url: endpoint, headers: headers, body: Data(FormURLEncoding.encode(form).utf8)))
        }
    }
}
