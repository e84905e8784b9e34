import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiSdk
import Testing

@Suite("DPoP nonces belong to the client")
struct NonceStoreOwnershipTests {
    @Test("each configuration owns a nonce store: what one client learns about a server, another does not see")
    func ownership() async throws {
        let first = StubFlow.configuration(StubTransport())
        let second = StubFlow.configuration(StubTransport())
        let firstStore = try #require(first.dpopNonceStore)
        let secondStore = try #require(second.dpopNonceStore)
        #expect(firstStore !== secondStore)
        let server = URL(string: "https://login.example/oauth/token")!
        let answer = HTTPResponse(statusCode: 200, headers: ["DPoP-Nonce": "n-1"], body: Data(), url: server)
        #expect(await firstStore.record(answer))
        #expect(await firstStore.nonce(for: server) == "n-1")
        #expect(await secondStore.nonce(for: server) == nil)
        // A store passed in is shared on purpose (two configurations of one app and server).
        let shared = DPoPNonceStore()
        let third = HaapiConfiguration(
            name: "a", clientId: "c", baseURL: server, tokenEndpointURL: server, authorizationEndpointURL: server,
            appRedirect: "app://x", dpopNonceStore: shared)
        #expect(third.dpopNonceStore === shared)
    }
}
