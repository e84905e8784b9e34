import Foundation
import HaapiSdk
import Testing

/// Issue 13, item 2: the App Attest key id is kept and reused; a new key only when the stored one is
/// invalid; the attested HAAPI token request names the client.
@Suite("App Attest key handling and the attested token request")
struct AppAttestTests {
    /// App Attest as the attester sees it; counts keys, and can invalidate one.
    final class FakeAppAttest: AppAttestKeyService, @unchecked Sendable {
        struct InvalidKey: Error {}
        private let lock = NSLock()
        private(set) var generated: [String] = []
        private(set) var attested: [String] = []
        var invalid: Set<String> = []
        var isSupported: Bool { true }

        func generateKey() async throws -> String {
            lock.withLock {
                let id = "key-\(generated.count + 1)"
                generated.append(id)
                return id
            }
        }

        func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data {
            try lock.withLock {
                guard !invalid.contains(keyID), generated.contains(keyID) else { throw InvalidKey() }
                attested.append(keyID)
                return Data("attestation of \(keyID)".utf8)
            }
        }

        func isInvalidKeyError(_ error: any Error) -> Bool { error is InvalidKey }
    }

    static func keyID(_ response: String) throws -> String? {
        try JSONParser().parse(Data(try #require(Base64URL.decode(response))))["keyId"]?.stringValue
    }

    @Test("one key for many attestations, kept across attester instances; an invalid key is replaced once")
    func keyReuse() async throws {
        let service = FakeAppAttest()
        let storage = InMemoryStorage()
        let dpopKey = SoftwareP256SigningKey()
        let first = AppAttestKeyAttester(service: service, storage: storage)
        #expect(try Self.keyID(try await first.attest(challenge: "c1", clientId: "app", key: dpopKey)) == "key-1")
        #expect(try Self.keyID(try await first.attest(challenge: "c2", clientId: "app", key: dpopKey)) == "key-1")
        // A new attester over the same storage (the app relaunched) reuses the key too.
        let relaunched = AppAttestKeyAttester(service: service, storage: storage)
        #expect(try Self.keyID(try await relaunched.attest(challenge: "c3", clientId: "app", key: dpopKey)) == "key-1")
        #expect(service.generated == ["key-1"] && service.attested.count == 3)

        service.invalid.insert("key-1")
        #expect(try Self.keyID(try await relaunched.attest(challenge: "c4", clientId: "app", key: dpopKey)) == "key-2")
        #expect(try storage.read(key: "app-attest.key-id") == Data("key-2".utf8))
        // The response binds the DPoP key.
        let answer = try await relaunched.attest(challenge: "c5", clientId: "app", key: dpopKey)
        let response = try JSONParser().parse(Data(try #require(Base64URL.decode(answer))))
        #expect(response["jkt"]?.stringValue == dpopKey.thumbprint && service.generated.count == 2)
    }

    @Test("an attestation failure that is not an invalid key is an attestation failure, and keeps the key")
    func otherFailure() async throws {
        struct Broken: AppAttestKeyService {
            var isSupported: Bool { true }
            func generateKey() async throws -> String { "k" }
            func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data {
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
