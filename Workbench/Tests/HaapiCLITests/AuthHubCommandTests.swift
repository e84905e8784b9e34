import Foundation
import Testing

/// `haapi authhub login` against `haapi serve`'s Authentication Hub tenants.
@Suite("haapi authhub login")
struct AuthHubCommandTests {
    @Test("encrypted password (a wrong one first), then the e-mail code, to AUTH_ALLOWED; tokens masked")
    func passwordAndOTP() async throws {
        let (server, base) = try await LoginAndTokenCommandTests.startServer()
        defer { server.terminate() }
        let result = try await CLIRunner.run(
            [
                "authhub", "login", "--server", base, "--tenant", "default", "--user", "demouser", "--factor",
                "EMAILOTP", "--dev-inbox",
            ],
            stdin: Data("not-the-password\nPassword1\n".utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("The tenant encrypts: password"))
        #expect(result.stdout.contains("✗ Invalid credentials"))
        #expect(result.stdout.contains("→ EMAIL_OTP_AUTH") && result.stdout.contains("amr: pwd, otp"))
        #expect(result.stdout.contains("masked; --show-tokens") && !result.stdout.contains("Password1"))
    }

    @Test(
        "through the proxy URL, the FIDO factor registers a passkey in the store and signs in with it; a second run signs in directly"
    )
    func proxyAndPasskey() async throws {
        let (server, base) = try await LoginAndTokenCommandTests.startServer()
        defer { server.terminate() }
        let store = try CLIRunner.temporaryDirectory().appendingPathComponent("passkeys").path
        let arguments = [
            "authhub", "login", "--server", base, "--proxy-url", base + "/gateway", "--user", "demouser", "--factor",
            "FIDO", "--passkey-store", store,
        ]
        let first = try await CLIRunner.run(arguments, stdin: Data("Password1\n".utf8))
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Creating a passkey") && first.stdout.contains("amr: pwd, fido"))
        let second = try await CLIRunner.run(arguments, stdin: Data("Password1\n".utf8))
        #expect(
            second.status == 0 && !second.stdout.contains("Creating a passkey")
                && second.stdout.contains("Signing in with a passkey"), "\(second.stderr)")
    }

    @Test("an unknown tenant and a wrong password to the end give exit 1 with the hub's reason")
    func failures() async throws {
        let (server, base) = try await LoginAndTokenCommandTests.startServer()
        defer { server.terminate() }
        let unknown = try await CLIRunner.run(
            ["authhub", "login", "--server", base, "--tenant", "nobody", "--user", "demouser"], stdin: Data())
        #expect(unknown.status == 1 && unknown.stderr.contains("Unknown tenant"))
        let wrong = String(repeating: "wrong\n", count: 6)
        let locked = try await CLIRunner.run(
            ["authhub", "login", "--server", base, "--tenant", "plain", "--user", "demouser"], stdin: Data(wrong.utf8))
        #expect(locked.status == 1)
        #expect(locked.stderr.contains("0000050") || locked.stderr.contains("1004002"), "\(locked.stderr)")
    }
}
