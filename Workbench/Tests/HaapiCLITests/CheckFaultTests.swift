import Foundation
@_spi(Tooling) import HaapiModel
import HaapiServer
import Testing

/// `haapi check` against the dev server behind a proxy that breaks one behaviour at a time, and against
/// configurations that switch a protection off: each fault is reported by its own finding, and nothing
/// else turns red (issue 33, item 5).
@Suite("haapi check finds each fault", .serialized, .timeLimit(.minutes(4)))
struct CheckFaultTests {
    /// The errors and warnings of one run, by id.
    static func red(_ result: CLIRunner.Result) throws -> Set<String> {
        let findings = try CheckCommandTests.findings(result)
        return Set(
            findings.filter { ["error", "warning"].contains($0["severity"]?.stringValue) }.compactMap {
                $0["id"]?.stringValue
            })
    }

    static func check(_ server: URL, _ extra: [String] = []) async throws -> CLIRunner.Result {
        let password = try CheckCommandTests.secretFile("Password1\n")
        return try await CLIRunner.run(
            [
                "check", "--server", server.absoluteString, "--username", "demouser", "--password-file", password.path,
                "--json",
            ]
                + extra)
    }

    @Test("endpoints on another origin: reported, their groups skipped, and that origin sees no request")
    func endpointsElsewhere() async throws {
        let proxy = try await FaultProxy()
        let elsewhere = try await FaultProxy()
        defer {
            proxy.stop()
            elsewhere.stop()
        }
        let server = try DevServer(
            configuration: try ServerConfiguration.embeddedDefault, store: ServerStore(path: nil))
        let running = try await server.start(publicURL: proxy.url.absoluteString, logLevel: .critical)
        defer { Task { await running.stop() } }
        let upstream = try #require(URL(string: "http://127.0.0.1:\(running.port)"))
        await proxy.forward(to: upstream)
        // The other origin is a working copy of the server: a check that used it would get answers.
        await elsewhere.forward(to: upstream)
        await proxy.moveEndpoints(from: proxy.url, to: elsewhere.url)

        let secret = try CheckCommandTests.secretFile("authhub-secret-change-me")
        for extra in [[], ["--client-id", "authhub-app", "--client-secret-file", secret.path]] {
            let result = try await Self.check(proxy.url, extra)
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            let findings = try CheckCommandTests.findings(result)
            let ids = Set(findings.compactMap { $0["id"]?.stringValue })
            #expect(
                ids.isSuperset(of: [
                    "discovery.endpoints-off-origin", "dpop.skipped", "haapi.skipped", "hygiene.skipped",
                ]),
                "\(ids.sorted())")
            #expect(!result.stdout.contains("authhub-secret-change-me") && !result.stdout.contains("Password1"))
        }
        // A group asked for by name that could not run: an error, and the exit says so (issue 51 item 7).
        let only = try await Self.check(proxy.url, ["--only", "dpop"])
        #expect(only.status == 1, "\(only.stdout)\n\(only.stderr)")
        let skipped = try CheckCommandTests.findings(only).first { $0["id"] == "dpop.skipped" }
        #expect(skipped?["severity"] == "error" && skipped?["fix"] != nil, "\(only.stdout)")
        #expect(await elsewhere.received() == 0, "the other origin was sent requests")
    }

    @Test("each proxy fault: its own finding id, and no other error or warning than without a fault")
    func proxyFaults() async throws {
        let proxy = try await FaultProxy()
        defer { proxy.stop() }
        let server = try DevServer(
            configuration: try ServerConfiguration.embeddedDefault, store: ServerStore(path: nil))
        let running = try await server.start(publicURL: proxy.url.absoluteString, logLevel: .critical)
        defer { Task { await running.stop() } }
        // Upstream by its bound port: the base URL names the proxy.
        await proxy.forward(to: try #require(URL(string: "http://127.0.0.1:\(running.port)")))

        let baseline = try await Self.check(proxy.url)
        #expect(baseline.status == 0, "\(baseline.stdout)\n\(baseline.stderr)")
        let clean = try Self.red(baseline)
        #expect(clean.isEmpty, "the dev server behind a transparent proxy: \(clean)")

        let expected: [(FaultProxy.Fault, String)] = [
            (.replayAnswer, "dpop.replay"),
            (.dropNonce, "dpop.nonce-header-missing"),
            (.rewriteIssuer, "discovery.issuer-mismatch"),
            (.missingEndpoint, "discovery.endpoint-missing"),
            (.acceptPlainPKCE, "oauth.pkce-plain"),
            (.sameRefreshToken, "oauth.refresh-rotation"),
            (.ignoreSessionHeader, "haapi.session-missing"),
        ]
        for (fault, id) in expected {
            await proxy.set(fault)
            let result = try await Self.check(proxy.url)
            let red = try Self.red(result)
            #expect(red == clean.union([id]), "\(fault): \(red.sorted())\n\(result.stderr)")
            // A fault that is an error fails the run; a warning does not.
            let isError = try CheckCommandTests.findings(result).contains {
                $0["id"]?.stringValue == id && $0["severity"]?.stringValue == "error"
            }
            #expect(result.status == (isError ? 1 : 0), "\(fault): exit \(result.status)")
        }
        // Without nonces the SDK's groups cannot run: each says so once, instead of failing on its own.
        await proxy.set(.dropNonce)
        let skipped = try CheckCommandTests.findings(try await Self.check(proxy.url)).compactMap {
            $0["id"]?.stringValue
        }
        #expect(skipped.contains("haapi.skipped") && skipped.contains("hygiene.skipped"), "\(skipped)")
    }

    /// Issue 43: verdicts a team can trust on a server the check has never seen.
    @Test(
        "a 5xx is never a pass; refused client credentials stop the DPoP verdicts; a token never shown active makes revocation inconclusive; a JWT without cnf is not bound"
    )
    func unseenServers() async throws {
        let proxy = try await FaultProxy()
        defer { proxy.stop() }
        let server = try DevServer(
            configuration: try ServerConfiguration.embeddedDefault, store: ServerStore(path: nil))
        let running = try await server.start(publicURL: proxy.url.absoluteString, logLevel: .critical)
        defer { Task { await running.stop() } }
        await proxy.forward(to: try #require(URL(string: "http://127.0.0.1:\(running.port)")))
        let attackRules: Set<String> = [
            "dpop.replay", "dpop.htm-mismatch", "dpop.htu-mismatch", "dpop.iat-window", "dpop.typ", "dpop.alg",
            "dpop.signature", "dpop.jwk", "dpop.nonce-unknown",
        ]

        // Every second token request answered 500: no attack answered 500 passes.
        await proxy.set(.failEverySecondTokenRequest)
        let failing = try CheckCommandTests.findings(try await Self.check(proxy.url, ["--only", "dpop"]))
        let attacks = failing.filter { attackRules.contains($0["id"]?.stringValue ?? "") }
        #expect(attacks.count >= 10, "\(failing)")
        for finding in attacks where finding["received"]?.stringValue?.hasPrefix("500") == true {
            #expect(finding["severity"]?.stringValue == "warning", "\(finding)")
            #expect(finding["title"]?.stringValue?.hasPrefix("Inconclusive") == true, "\(finding)")
        }
        #expect(attacks.contains { $0["received"]?.stringValue?.hasPrefix("500") == true })
        #expect(
            !attacks.contains {
                $0["severity"]?.stringValue == "pass" && $0["received"]?.stringValue?.hasPrefix("500") == true
            })

        // The client's credentials refused: that finding, no DPoP verdict, the groups needing a token skipped.
        await proxy.set(.refuseClient)
        let refused = try CheckCommandTests.findings(try await Self.check(proxy.url))
        let ids = refused.compactMap { $0["id"]?.stringValue }
        #expect(
            refused.contains { $0["id"] == "oauth.client-authentication" && $0["severity"] == "error" }, "\(ids)")
        #expect(ids.filter { attackRules.contains($0) }.isEmpty, "\(ids)")
        #expect(!ids.contains("dpop.fresh-refused"))
        #expect(ids.contains("haapi.skipped") && ids.contains("hygiene.skipped"), "\(ids)")

        // Introspection that never shows the client its token: the revocation is inconclusive, not a pass.
        await proxy.set(.introspectionInactive)
        let secret = try CheckCommandTests.secretFile("authhub-secret-change-me")
        let quiet = try CheckCommandTests.findings(
            try await CLIRunner.run([
                "check", "--server", proxy.url.absoluteString, "--client-id", "authhub-app", "--client-secret-file",
                secret.path, "--scope", "urn:iam:myscopes", "--json",
            ]))
        let revocation = quiet.filter { $0["id"] == "oauth.revocation" }
        #expect(revocation.count == 1 && revocation.first?["severity"] == "warning", "\(quiet)")
        #expect(revocation.first?["title"]?.stringValue?.hasPrefix("Inconclusive") == true)

        // A readable JWT access token with token_type DPoP and no cnf: not bound, an error.
        await proxy.set(.jwtWithoutCnf)
        let unbound = try CheckCommandTests.findings(try await Self.check(proxy.url, ["--only", "dpop"]))
        let binding = try #require(unbound.first { $0["id"] == "dpop.token-not-bound" }, "\(unbound)")
        #expect(binding["severity"] == "error" && binding["title"]?.stringValue?.contains("no cnf.jkt") == true)
    }

    @Test("a client that keeps its refresh tokens (seed 003's option): exactly that finding")
    func protectionsOff() async throws {
        var configuration = try ServerConfiguration.embeddedDefault
        let index = try #require(configuration.clients.firstIndex { $0.id == "haapi-demo" })
        configuration.clients[index].reuseRefreshTokens = true
        let server = try DevServer(configuration: configuration, store: ServerStore(path: nil))
        let running = try await server.start(loopbackName: "localhost", logLevel: .critical)
        defer { Task { await running.stop() } }
        let result = try await Self.check(running.baseURL, ["--only", "hygiene"])
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(try Self.red(result) == ["oauth.refresh-rotation"], "\(result.stdout)")
    }
}
