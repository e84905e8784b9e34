import Foundation
import HaapiRawClient
@_spi(Tooling) import HaapiSdk
import Testing

@testable import HaapiServer

/// Issue 13, item 2: the App Attest key id is kept and reused; a new key only when the stored one is
/// invalid; the attested HAAPI token request names the client.
@Suite("App Attest: one attestation per key, assertions afterwards, against the dev server's appAttest policy")
struct AppAttestTests {
    static let appID = "ABCDE12345.io.swift-haapi.tests"

    /// App Attest as the attester sees it, backed by `AppAttestSimulator` (real attestation objects and
    /// assertions under a test root); counts what it was asked, and can invalidate a key.
    final class FakeAppAttest: AppAttestKeyService, @unchecked Sendable {
        struct InvalidKey: Error {}
        let simulator: AppAttestSimulator
        private let lock = NSLock()
        private(set) var generated: [String] = []
        private(set) var attested: [String] = []
        private(set) var asserted: [String] = []
        var invalid: Set<String> = []
        var isSupported: Bool { true }

        init(simulator: AppAttestSimulator) { self.simulator = simulator }

        func generateKey() async throws -> String {
            let id = simulator.generateKey()
            lock.withLock { generated.append(id) }
            return id
        }

        func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data {
            try lock.withLock {
                guard !invalid.contains(keyID), generated.contains(keyID) else { throw InvalidKey() }
                attested.append(keyID)
            }
            return try simulator.attestationObject(
                keyID: keyID, clientDataHash: clientDataHash, appID: AppAttestTests.appID)
        }

        func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data {
            try lock.withLock {
                guard !invalid.contains(keyID), generated.contains(keyID) else { throw InvalidKey() }
                asserted.append(keyID)
            }
            return try simulator.assertion(keyID: keyID, clientDataHash: clientDataHash, appID: AppAttestTests.appID)
        }

        func isInvalidKeyError(_ error: any Error) -> Bool { error is InvalidKey }
    }

    static func response(_ answer: String) throws -> JSONValue {
        try JSONParser().parse(Data(try #require(Base64URL.decode(answer))))
    }

    @Test("a key is attested once and asserts afterwards, across attester instances; an invalid key is replaced")
    func attestOnceThenAssert() async throws {
        let service = FakeAppAttest(simulator: try AppAttestSimulator())
        let storage = InMemoryStorage()
        let dpopKey = SoftwareP256SigningKey()
        let first = AppAttestKeyAttester(service: service, storage: storage)
        let one = try Self.response(try await first.attest(challenge: "c1", clientId: "app", key: dpopKey))
        #expect(one["attestation"] != nil && one["assertion"] == nil)
        let two = try Self.response(try await first.attest(challenge: "c2", clientId: "app", key: dpopKey))
        #expect(two["assertion"] != nil && two["attestation"] == nil && two["keyId"] == one["keyId"])
        // A new attester over the same storage (the app relaunched) asserts with the same key.
        let relaunched = AppAttestKeyAttester(service: service, storage: storage)
        let three = try Self.response(try await relaunched.attest(challenge: "c3", clientId: "app", key: dpopKey))
        #expect(three["assertion"] != nil && three["keyId"] == one["keyId"])
        #expect(service.generated.count == 1 && service.attested.count == 1 && service.asserted.count == 2)
        // The response binds the DPoP key.
        #expect(three["jkt"]?.stringValue == dpopKey.thumbprint)

        service.invalid.insert(try #require(one["keyId"]?.stringValue))
        let four = try Self.response(try await relaunched.attest(challenge: "c4", clientId: "app", key: dpopKey))
        #expect(four["attestation"] != nil && four["keyId"] != one["keyId"] && service.generated.count == 2)
    }

    @Test(
        "a refused assertion asks for one retry and the next answer attests a new key; a refused attestation does not")
    func refusals() async throws {
        let service = FakeAppAttest(simulator: try AppAttestSimulator())
        let attester = AppAttestKeyAttester(service: service, storage: InMemoryStorage())
        let key = SoftwareP256SigningKey()
        #expect(!attester.serverRefused(), "nothing was sent yet")
        _ = try await attester.attest(challenge: "c1", clientId: "app", key: key)
        _ = try await attester.attest(challenge: "c2", clientId: "app", key: key)
        #expect(attester.serverRefused(), "an assertion was refused: worth one retry")
        let retried = try Self.response(try await attester.attest(challenge: "c3", clientId: "app", key: key))
        #expect(retried["attestation"] != nil && service.generated.count == 2)
        #expect(!attester.serverRefused(), "an attestation was refused: no retry")
        let after = try Self.response(try await attester.attest(challenge: "c4", clientId: "app", key: key))
        #expect(after["attestation"] != nil && service.generated.count == 3)
    }

    @Test(
        "against the dev server: attestation, then assertions; a server that lost its keys gets a new key's attestation"
    )
    func againstTheDevServer() async throws {
        let simulator = try AppAttestSimulator()
        func server() async throws -> SdkTestServer {
            try await SdkTestServer { configuration in
                configuration.appAttest = AppAttestSettings(appIDs: [Self.appID], rootCertificate: simulator.rootPEM)
                configuration.clients.append(
                    ClientConfiguration(
                        id: "sdk-ios", attestation: .appAttest, dpopNonce: true, redirectURIs: ["app://ios"],
                        scopes: ["openid", "profile"], appIds: [Self.appID]))
            }
        }
        let service = FakeAppAttest(simulator: simulator)
        let storage = InMemoryStorage()
        func login(_ server: SdkTestServer) async throws -> String {
            let base = server.configuration(clientId: "sdk-ios", redirect: "app://ios", storage: nil)
            let configuration = HaapiConfiguration(
                name: "ios-" + UUID().uuidString, clientId: "sdk-ios", baseURL: base.baseURL,
                tokenEndpointURL: base.tokenEndpointURL, authorizationEndpointURL: base.authorizationEndpointURL,
                appRedirect: "app://ios", authorizationParametersProvider: base.authorizationParametersProvider,
                attester: AppAttestKeyAttester(service: service, storage: storage),
                tokenBoundConfiguration: BoundedTokenConfiguration(keyPairType: .p256), dpopKeyStorage: nil)
            let manager = try HaapiManager(haapiConfiguration: configuration)
            defer { Task { await manager.close() } }
            let tokens = try await OAuthTokenManager(oauthTokenConfiguration: configuration)
                .fetchAccessToken(with: try await manager.passwordLogin(), dpop: manager.dpop).success()
            return tokens.tokenType ?? ""
        }
        let first = try await server()
        #expect(try await login(first) == "DPoP")
        #expect(try await login(first) == "DPoP")
        #expect(service.attested.count == 1 && service.asserted.count == 1)
        await first.running.stop()

        // A new server with an empty database does not know the key: the assertion is refused, and the SDK
        // retries at once with a new key's attestation.
        let second = try await server()
        #expect(try await login(second) == "DPoP")
        #expect(service.asserted.count == 2 && service.attested.count == 2 && service.generated.count == 2)
        await second.running.stop()
    }

    @Test("an attestation failure that is not an invalid key is an attestation failure, and keeps the key")
    func otherFailure() async throws {
        struct Broken: AppAttestKeyService {
            var isSupported: Bool { true }
            func generateKey() async throws -> String { "k" }
            func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data {
                throw URLError(.notConnectedToInternet)
            }
            func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data {
                throw URLError(.notConnectedToInternet)
            }
            func isInvalidKeyError(_ error: any Error) -> Bool { false }
        }
        let storage = InMemoryStorage()
        do {
            _ = try await AppAttestKeyAttester(service: Broken(), storage: storage).attest(
                challenge: "c", clientId: "app", key: SoftwareP256SigningKey())
            Issue.record("a failing service attested")
        } catch HaapiError.attestationFailure {
            #expect(try storage.read(key: "app-attest.key-id") == Data("k".utf8))
        }
    }

    @Test("the attested HAAPI token request carries client_id, and the dev server checks it against the CAT")
    func attestedRequestNamesTheClient() async throws {
        let server = try await SdkTestServer.shared.get()
        let recorder = RecordingTransport()
        let manager = try HaapiManager(haapiConfiguration: server.configuration(transport: recorder))
        _ = try await manager.tokenManager.getHaapiTokenAsync()
        let tokenRequest = try #require(
            await recorder.requests.first {
                $0.path.hasSuffix("/oauth/token") && $0.form.contains("client_assertion_type")
            })
        let form = FormURLEncoding.decode(tokenRequest.form) ?? []
        #expect(form.first { $0.name == "client_id" }?.value == "haapi-demo")
        await manager.close()
    }
}
