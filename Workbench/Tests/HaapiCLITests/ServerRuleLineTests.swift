import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

/// A refusal reaches the developer on both sides: `haapi serve` prints its line, and the SDK carries the
/// rule the server named, which `haapi login` and `haapi token` print on their `error:` line.
@Suite("The server's rule on both sides: serve's line, the SDK's error, the CLI's error line")
struct ServerRuleLineTests {
    @Test("HaapiError.serverRule: the bracketed id at the end of error_description, also through a cause")
    func parsing() throws {
        let refused = HaapiError.serverError(
            error: "invalid_dpop_proof", errorDescription: "htu does not match the request URL [dpop.htu-mismatch]",
            statusCode: 400)
        #expect(refused.serverRule == "dpop.htu-mismatch")
        #expect(refused.localizedDescription.contains("htu does not match the request URL [dpop.htu-mismatch]"))
        let attestation = HaapiError.attestationRefusedByServer(cause: refused)
        #expect(attestation.serverRule == "dpop.htu-mismatch")
        #expect(attestation.localizedDescription.contains("[dpop.htu-mismatch]"), "\(attestation.localizedDescription)")
        let problem = try #require(
            try HaapiDecoder().decodeProblem(
                Data(
                    #"{"type":"https://curity.se/problems/error-authorization-response","title":"t","error":"invalid_redirect_uri","error_description":"redirect_uri is not registered for this client [oauth.redirect-uri]"}"#
                        .utf8)
            ) as? AuthorizationProblem)
        #expect(problem.serverRule == "oauth.redirect-uri")
        for description in [
            "no rule here", "[dpop.htu-mismatch] at the start", "a [Dpop.Upper]", "a [dpop]", "a [a.b.c]", "a [.x]",
            "a [dpop.<script>]", "a [x." + String(repeating: "y", count: 70) + "]", "a []", "]",
        ] {
            #expect(ServerRuleID.parse(description) == nil, "\(description)")
        }
        #expect(HaapiError.invalidStatusCode(statusCode: 400).serverRule == nil)
    }

    @Test("an unknown client and a refresh with another key: the rule on serve's output and on the error line")
    func bothSides() async throws {
        let (server, output) = try CLIRunner.start(["serve", "--port", "0"])
        defer { server.terminate() }
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") }).description

        let unknown = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "no-such-client", "--username", "demouser", "--password",
            "Password1",
        ])
        #expect(unknown.status == 77, "\(unknown.stderr)")
        let line = unknown.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(line.hasPrefix("error: ") && line.contains("oauth.client-unknown"), "\(unknown.stderr)")
        let served = try await CLIRunner.waitForLine(containing: "[oauth.client-unknown]", in: output, timeout: 10)
        #expect(served.contains("GET /oauth/token/cat 401 client=no-such-client"), "\(served)")
        #expect(served.contains("client_id: no-such-client is not a configured client with an attestation policy"))

        let directory = try CLIRunner.temporaryDirectory()
        let login = try await CLIRunner.run([
            "login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "Password1",
            "--dpop-key", directory.appendingPathComponent("dpop.jwk").path, "--json", "--show-tokens",
        ])
        let refreshToken = try #require(try JSONParser().parse(login.stdout)["refresh_token"]?.stringValue)
        let stolen = try await CLIRunner.run([
            "token", "refresh", "--token-endpoint", base + "/oauth/token", "--client-id", "haapi-demo", "--dpop-key",
            directory.appendingPathComponent("other.jwk").path, "--refresh-token", refreshToken,
        ])
        #expect(stolen.status == 77)
        #expect(
            stolen.stderr.hasPrefix("error: ") && stolen.stderr.contains("rule dpop.cnf-mismatch"), "\(stolen.stderr)")
        let bound = try await CLIRunner.waitForLine(containing: "[dpop.cnf-mismatch]", in: output, timeout: 10)
        #expect(bound.contains("POST /oauth/token 400 client=haapi-demo"), "\(bound)")
        // The refresh token itself never reaches serve's output.
        let everything = try String(contentsOf: output, encoding: .utf8)
        #expect(!everything.contains(refreshToken))
    }
}
