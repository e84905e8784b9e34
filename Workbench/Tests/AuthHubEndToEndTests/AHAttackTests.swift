@_spi(Tooling) import AuthHub
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys
import Testing

@testable import HaapiServer

/// Issue 12 against the Authentication Hub: no passkey without the password first, and no answer that
/// tells a real account from an unknown name.
@Suite("Authentication Hub attacks", .serialized)
struct AHAttackTests {
    @Test(
        "a passkey cannot be registered (nor a sign-in started) before the flow proved the password; nothing is stored")
    func fidoWithoutPassword() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let core = AHCore()
        let origin = hub.host.hasSuffix("/") ? String(hub.host.dropLast()) : hub.host
        let flow = hub.flow(core: core)
        _ = try await flow.start(
            authRequestParams: AuthHubTestServer.parameters("demouser"), fieldsTobeEncryptedList: ["password"])
        for path in [AuthHubEndpoint.Path.registerChallengeGenerator, .authChallengeGenerator] {
            do {
                _ = try await flow.send(path, ["documentDomain": origin, "userName": "demouser"])
                Issue.record("\(path) answered before the password")
            } catch {
                #expect(error.serverCode == "0000011", "\(error)")
            }
        }
        let attacker = SoftwareAuthenticator(storage: InMemoryStorage())
        do {
            _ = try await flow.registerPasskey(
                with: attacker, documentDomain: origin, userName: "demouser", deviceName: "attacker")
            Issue.record("a passkey was registered without the password")
        } catch {}
        #expect(try await attacker.credentials().isEmpty)
        #expect(try await hub.server.store.passkeys(username: "demouser").isEmpty)
    }

    @Test("an unknown subject gets the same steps and the same errors as a real one, lockout included")
    func noEnumeration() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        var answers: [String: [String]] = [:]
        for subject in ["demouser", "nobody-here"] {
            let core = AHCore()
            let flow = hub.flow(core: core)
            let first = try await flow.start(
                authRequestParams: AuthHubTestServer.parameters(subject), fieldsTobeEncryptedList: ["password"])
            var seen = ["\(String(describing: first.nextAction))"]
            for _ in 0..<3 {
                do {
                    _ = try await flow.authenticatePassword(try core.encryptData(plainText: "not-the-password"))
                    seen.append("accepted")
                } catch {
                    seen.append(error.serverCode ?? "\(error)")
                }
            }
            answers[subject] = seen
        }
        #expect(answers["demouser"] == answers["nobody-here"], "\(answers)")
    }
}

@Suite("Authentication Hub errors a person can read")
struct AHLocalizedErrorTests {
    @Test("server, flow and encryption errors have specific sentences")
    func sentences() {
        #expect(
            AHServerError(code: "1004003", message: "Invalid credentials").localizedDescription
                == "The Authentication Hub refused the request: Invalid credentials (1004003).")
        #expect(
            AHFlowError.noFlowState.localizedDescription
                == "The Authentication Hub sign-in failed: no flow state: start the flow first.")
        #expect(
            AHEncryptionError.noTenantKey.localizedDescription.hasPrefix(
                "A field could not be encrypted for the Authentication Hub: "))
    }
}
