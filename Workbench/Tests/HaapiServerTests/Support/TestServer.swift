import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient

@testable import HaapiServer

/// A clock the tests can move forward (to expire codes, challenges and waits).
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return Date().addingTimeInterval(offset)
    }

    func advance(_ seconds: TimeInterval) {
        lock.lock()
        offset += seconds
        lock.unlock()
    }
}

/// The configuration the tests run against: the embedded default plus clients for the other modes.
enum TestConfiguration {
    static let clientKey = SoftwareP256SigningKey()

    static func make() throws -> ServerConfiguration {
        var configuration = try ServerConfiguration.embeddedDefault
        configuration.clients += [
            ClientConfiguration(
                id: "legacy-client", attestation: .software, redirectURIs: ["app://legacy"],
                scopes: ["openid", "profile"],
                authenticators: ["password"]),
            ClientConfiguration(
                id: "consent-client", attestation: .disabled, tokenBoundCodes: true, dpopNonce: true,
                redirectURIs: ["app://consent"], scopes: ["openid", "profile", "email"], requirePKCE: true,
                consent: true,
                authenticators: ["password"]),
            ClientConfiguration(
                id: "secret-basic", secret: "basic-secret", authenticationMethod: .clientSecretBasic, scopes: ["api"]),
            ClientConfiguration(
                id: "secret-post", secret: "post-secret", authenticationMethod: .clientSecretPost, scopes: ["api"],
                accessTokenLifetime: 42),
            ClientConfiguration(
                id: "secret-jwt", secret: "a-long-shared-secret-for-hs256-signing",
                authenticationMethod: .clientSecretJWT, scopes: ["api"]),
            ClientConfiguration(
                id: "key-jwt", authenticationMethod: .privateKeyJWT,
                jwks: JSONValue.object(["keys": [clientKey.publicJWK.json]]).serialized(), scopes: ["api"]),
        ]
        configuration.users.append(
            UserConfiguration(
                username: "lockme", passwordHash: ServerConfiguration.demoPasswordHash, email: "lockme@example.com"))
        configuration.users.append(
            UserConfiguration(
                username: "approver", passwordHash: ServerConfiguration.demoPasswordHash, email: "approver@example.com")
        )
        configuration.lifetimes.approvalWait = 30
        return configuration
    }
}

/// A started dev server. `shared` is one per test process; tests that move the clock or restart get their own.
final class TestServer: Sendable {
    let server: DevServer
    let running: RunningDevServer
    let clock: TestClock

    var base: String { server.issuer }

    init(
        configuration: ServerConfiguration? = nil, databasePath: String? = nil, clock: TestClock = TestClock(),
        requestLog: RequestLogOptions = .off
    ) async throws {
        self.clock = clock
        server = try DevServer(
            configuration: configuration ?? TestConfiguration.make(), store: ServerStore(path: databasePath),
            requestLog: requestLog, clock: { clock.now })
        running = try await server.start()
    }

    func stop() async { await running.stop() }

    static let shared = SharedServer()

    actor SharedServer {
        private var started: TestServer?

        func get() async throws -> TestServer {
            if let started { return started }
            let server = try await TestServer()
            started = server
            return server
        }
    }
}
