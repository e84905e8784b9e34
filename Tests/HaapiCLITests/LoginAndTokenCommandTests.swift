import Foundation
import HaapiModel
import Testing

/// `haapi login` and `haapi token` against `haapi serve`, as a user would run them.
@Suite("haapi login and haapi token")
struct LoginAndTokenCommandTests {
    static func startServer() async throws -> (Process, String) {
        let (process, output) = try CLIRunner.start(["serve", "--port", "0"])
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://127.0.0.1:") }).description
        return (process, base)
    }

    @Test("login prints masked tokens; --json --show-tokens prints the token response; refresh with the same key; another key is refused; revoke")
    func loginRefreshRevoke() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let directory = try CLIRunner.temporaryDirectory()
        let key = directory.appendingPathComponent("dpop.jwk").path

        let masked = try CLIRunner.run(["login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "Password1"])
        #expect(masked.status == 0, "\(masked.stderr)")
        #expect(masked.stdout.contains("token_type: DPoP"))
        #expect(masked.stdout.contains("masked"))

        let login = try CLIRunner.run(["login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "Password1",
                                       "--dpop-key", key, "--json", "--show-tokens"])
        #expect(login.status == 0, "\(login.stderr)")
        let tokens = try JSONParser().parse(login.stdout)
        let refreshToken = try #require(tokens["refresh_token"]?.stringValue)
        #expect(tokens["token_type"] == "DPoP")

        let common = ["--token-endpoint", base + "/oauth/token", "--client-id", "haapi-demo"]
        let refreshed = try CLIRunner.run(["token", "refresh"] + common + ["--dpop-key", key, "--refresh-token", refreshToken, "--show-tokens"])
        #expect(refreshed.status == 0, "\(refreshed.stdout) \(refreshed.stderr)")
        let rotated = try #require(try JSONParser().parse(refreshed.stdout)["refresh_token"]?.stringValue)

        let otherKey = directory.appendingPathComponent("other.jwk").path
        let stolen = try CLIRunner.run(["token", "refresh"] + common + ["--dpop-key", otherKey, "--refresh-token", rotated])
        #expect(stolen.status == 1)
        #expect(try JSONParser().parse(stolen.stdout)["error"]?.stringValue != nil)

        let revoked = try CLIRunner.run(["token", "revoke"] + common + ["--token", rotated])
        #expect(revoked.status == 0, "\(revoked.stdout) \(revoked.stderr)")
        let afterRevoke = try CLIRunner.run(["token", "refresh"] + common + ["--dpop-key", key, "--refresh-token", rotated])
        #expect(afterRevoke.status == 1)
        #expect(try JSONParser().parse(afterRevoke.stdout)["error"] == "invalid_grant")
    }

    @Test("login through the DCR fallback, and a wrong password is a clear error")
    func dcrAndWrongPassword() async throws {
        let (server, base) = try await Self.startServer()
        defer { server.terminate() }
        let dcr = try CLIRunner.run(["login", "--server", base, "--client-id", "haapi-dcr-main", "--client-secret", "dcr-main-secret-change-me",
                                     "--dcr-template", "haapi-dcr-template", "--dcr-endpoint", base + "/oauth/register",
                                     "--username", "demouser", "--password", "Password1"])
        #expect(dcr.status == 0, "\(dcr.stderr)")
        #expect(dcr.stdout.contains("(client dyn-"))

        let wrong = try CLIRunner.run(["login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password", "nope"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("incorrect-credentials"))
    }
}
