import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys
import Testing

@testable import HaapiServer

/// The web-app RP endpoints of the dev server, driven by `AccountManager` with the software authenticator.
@Suite("Passkeys against the dev server's web-app RP", .timeLimit(.minutes(3)))
struct RelyingPartyTests {
    static func server() async throws -> (DevServer, RunningDevServer) {
        let server = try DevServer(
            configuration: try ServerConfiguration.embeddedDefault, store: try ServerStore(path: nil))
        return (server, try await server.start())
    }

    @Test("sign up, then sign in twice; a second sign-up for the same name is refused")
    func signUpAndIn() async throws {
        let (_, running) = try await Self.server()
        let manager = AccountManager(
            client: RelyingPartyClient(baseURL: running.baseURL),
            authenticator: SoftwareAuthenticator(storage: InMemoryStorage()))
        let account = try await manager.signUp(userName: "alice")
        #expect(account.userName == "alice" && !account.credentialID.isEmpty)
        #expect(try await manager.signIn() == account)
        #expect(try await manager.signIn() == account)
        await #expect(throws: WebAuthnError.self) { try await manager.signUp(userName: "alice") }
        await running.stop()
    }

    @Test("a replayed finalize, another origin, a cloned authenticator and another user's handle are refused")
    func refusals() async throws {
        let (_, running) = try await Self.server()
        let client = RelyingPartyClient(baseURL: running.baseURL)
        let storage = InMemoryStorage()
        let authenticator = SoftwareAuthenticator(storage: storage)
        let manager = AccountManager(client: client, authenticator: authenticator)
        _ = try await manager.signUp(userName: "carol")

        // Replay: the same assertion twice; the challenge is single use.
        let options = try await client.authenticationInitialize()
        let assertion = try await authenticator.authenticate(options, origin: manager.origin)
        _ = try await client.authenticationFinalize(assertion)
        await #expect(throws: WebAuthnError.self) { try await client.authenticationFinalize(assertion) }

        // Another origin: the authenticator itself refuses an origin the RP ID does not cover; an RP-side
        // origin mismatch (same host, other port) is refused by the RP.
        let otherPort = URL(string: "http://127.0.0.1:1")!
        let elsewhere = AccountManager(client: client, authenticator: authenticator, origin: otherPort.absoluteString)
        await #expect(throws: WebAuthnError.self) { try await elsewhere.signIn() }

        // A clone: a copy of the store taken now signs later with a stale counter.
        let cloneStorage = InMemoryStorage()
        try cloneStorage.write(try #require(try storage.read(key: "passkeys.credentials")), key: "passkeys.credentials")
        _ = try await manager.signIn()
        let clone = AccountManager(client: client, authenticator: SoftwareAuthenticator(storage: cloneStorage))
        do {
            _ = try await clone.signIn()
            Issue.record("a cloned authenticator with a stale counter signed in")
        } catch {
            #expect("\(error)".contains("counter"))
        }

        // Another user's handle on carol's credential.
        let dave = AccountManager(client: client, authenticator: SoftwareAuthenticator(storage: InMemoryStorage()))
        let daveAccount = try await dave.signUp(userName: "dave")
        let request = try await client.authenticationInitialize()
        let carols = try await authenticator.authenticate(request, origin: manager.origin)
        let forged = AuthenticationResponse(
            credentialID: carols.credentialID, clientDataJSON: carols.clientDataJSON,
            authenticatorData: carols.authenticatorData,
            signature: carols.signature, userHandle: Base64URL.decode(daveAccount.userID).map { Data($0) })
        do {
            _ = try await client.authenticationFinalize(forged)
            Issue.record("a credential signed in as another user")
        } catch {
            #expect("\(error)".contains("another user"))
        }
        await running.stop()
    }
}
