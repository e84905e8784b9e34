import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiUI
import Testing

@testable import HaapiServer

/// Issue 12, item 1: nobody adds a passkey to an account they have not proven they own, through any route
/// that registers one, and a credential never signs in to an account created after it.
@Suite("Passkey account takeover is refused", .timeLimit(.minutes(3)))
@MainActor
struct PasskeyTakeoverTests {
    /// A HAAPI sign-in with the passkeys authenticator and `authenticator`'s credentials: the tokens, if any.
    static func haapiPasskeySignIn(
        _ server: UITestServer, with authenticator: SoftwareAuthenticator
    ) async throws -> OAuthTokenModel? {
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(passkeys: authenticator))
        await viewModel.start()
        try await viewModel.selectAuthenticator("passkeys")
        await viewModel.submit(try #require(viewModel.forms.first { $0.visibleFields.isEmpty }))
        _ = await viewModel.performPasskeyOperation()
        defer { Task { await viewModel.close() } }
        return viewModel.oAuthModel as? OAuthTokenModel
    }

    @Test(
        "web-app RP: an unauthenticated sign-up for an existing account's name or e-mail is refused; no tokens, no RP session for the victim"
    )
    func relyingPartyTakeover() async throws {
        let server = try await UITestServer.shared.get()
        let rp = RelyingPartyClient(baseURL: server.base)
        let attackerKeys = SoftwareAuthenticator(storage: InMemoryStorage())
        let attacker = AccountManager(client: rp, authenticator: attackerKeys)
        for victim in ["demouser", "demouser@example.com", "DemoUser", "approver"] {
            do {
                _ = try await attacker.signUp(userName: victim)
                Issue.record("a passkey was registered for the existing account \(victim)")
            } catch {
                #expect("\(error)".contains("already registered"), "\(error)")
            }
        }
        #expect(try await server.server.store.passkeys(username: "demouser").isEmpty)
        // Whatever the attacker's authenticator holds, it signs in to no one: not at the RP, not through HAAPI.
        await #expect(throws: WebAuthnError.self) { try await attacker.signIn() }
        #expect(try await Self.haapiPasskeySignIn(server, with: attackerKeys) == nil)
    }

    @Test("a sign-up finished after someone else created the name does not attach to that account (pre-hijacking)")
    func preHijacking() async throws {
        let server = try await UITestServer.shared.get()
        let rp = RelyingPartyClient(baseURL: server.base)
        let attackerKeys = SoftwareAuthenticator(storage: InMemoryStorage())
        // The attacker starts a sign-up for a name nobody has yet...
        let options = try await rp.registrationInitialize(userName: "future-victim")
        let registration = try await attackerKeys.register(options, origin: Self.origin(server))
        // ...the real person creates that account (with a password) meanwhile...
        let created = try await server.server.store.insertUser(
            StoredUser(
                username: "future-victim", passwordHash: try server.server.passwords.hash("Password12"),
                email: "fv@example.com", name: nil),
            now: Date())
        guard case .success = created else {
            Issue.record("the account could not be created: \(created)")
            return
        }
        // ...so the attacker's finalize must not add its credential to the new account.
        await #expect(throws: WebAuthnError.self) { try await rp.registrationFinalize(registration) }
        #expect(try await server.server.store.passkeys(username: "future-victim").isEmpty)
        #expect(try await Self.haapiPasskeySignIn(server, with: attackerKeys) == nil)
    }

    @Test("a credential stored before its account existed (an older database) signs in to nothing")
    func orphanCredential() async throws {
        let server = try await UITestServer()
        defer { Task { await server.running.stop() } }
        let rp = RelyingPartyClient(baseURL: server.base)
        let attackerKeys = SoftwareAuthenticator(storage: InMemoryStorage())
        // A sign-up under a fresh name works and is the attacker's own account.
        _ = try await AccountManager(client: rp, authenticator: attackerKeys).signUp(userName: "squatter")
        let credential = try #require(try await server.server.store.passkeys(username: "squatter").first)
        // Simulate a database from before sign-ups created accounts: the credential names an account that
        // did not exist when it was stored, and that account is created later by someone else.
        try await server.server.store.database.write { db in
            try db.execute(sql: "DELETE FROM users WHERE username = 'squatter'")
            try db.execute(
                sql: "UPDATE passkey_credentials SET username = 'later' WHERE credential_id = ?",
                arguments: [credential.credentialID])
        }
        _ = try await server.server.store.insertUser(
            StoredUser(
                username: "later", passwordHash: try server.server.passwords.hash("Password12"),
                email: "later@example.com", name: nil),
            now: Date().addingTimeInterval(1))
        await #expect(throws: WebAuthnError.self) {
            try await AccountManager(client: rp, authenticator: attackerKeys).signIn()
        }
        #expect(try await Self.haapiPasskeySignIn(server, with: attackerKeys) == nil)
    }

    @Test(
        "the legitimate paths: sign-up makes a new account; its RP session adds a second passkey; that session adds none to another account"
    )
    func legitimatePaths() async throws {
        let server = try await UITestServer.shared.get()
        let rp = RelyingPartyClient(baseURL: server.base)
        let keys = SoftwareAuthenticator(storage: InMemoryStorage())
        let manager = AccountManager(client: rp, authenticator: keys)
        let account = try await manager.signUp(userName: "carla")
        #expect(account.userName == "carla")
        #expect(try await server.server.store.user(named: "carla") != nil)
        let signedIn = try await manager.signIn()
        let session = try #require(signedIn.session)

        let laptop = AccountManager(client: rp, authenticator: SoftwareAuthenticator(storage: InMemoryStorage()))
        await #expect(throws: WebAuthnError.self) { try await laptop.addPasskey(to: account) }  // no session: refused
        let second = try await AccountManager(
            client: rp, authenticator: SoftwareAuthenticator(storage: InMemoryStorage())
        ).addPasskey(to: signedIn)
        #expect(second.userName == "carla" && second.userID == account.userID)
        #expect(try await server.server.store.passkeys(username: "carla").count == 2)

        // The session is carla's: it does not open demouser's account.
        await #expect(throws: WebAuthnError.self) {
            try await rp.registrationInitialize(userName: "demouser", session: session)
        }
        await #expect(throws: WebAuthnError.self) {
            try await rp.registrationInitialize(userName: "carla", session: "forged")
        }
        // And the passkey-only account signs in through HAAPI with that passkey.
        let tokens = try #require(try await Self.haapiPasskeySignIn(server, with: keys))
        #expect(tokens.idTokenClaims?["sub"]?.stringValue == "carla")
        // It has no password that could be guessed.
        guard
            case .incorrect = try await server.server.authenticatorService.checkPassword(
                username: "carla", password: "")
        else {
            Issue.record("a passkey-only account accepted a password")
            return
        }
    }

    @Test("HAAPI passkey registration needs the account's password first: a wrong one starts no ceremony")
    func haapiRegistrationNeedsPassword() async throws {
        let server = try await UITestServer.shared.get()
        let keys = SoftwareAuthenticator(storage: InMemoryStorage())
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(passkeys: keys))
        await viewModel.start()
        try await viewModel.selectAuthenticator("passkeys")
        await viewModel.submit(
            try #require(viewModel.forms.first { !$0.visibleFields.isEmpty }),
            values: ["userName": "demouser", "password": "guess"])
        #expect(viewModel.uiModel?.problemMessages.isEmpty == false)
        #expect(!(await viewModel.performPasskeyOperation()) || viewModel.oAuthModel == nil)
        #expect(try await keys.credentials().isEmpty)
        #expect(try await server.server.store.passkeys(username: "demouser").isEmpty)
        await viewModel.close()
    }

    static func origin(_ server: UITestServer) -> String {
        var components = URLComponents(url: server.base, resolvingAgainstBaseURL: true)
        components?.path = ""
        return components?.string ?? server.base.absoluteString
    }
}
