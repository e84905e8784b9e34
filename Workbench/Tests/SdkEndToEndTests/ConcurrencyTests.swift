import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

@Suite("SDK concurrency")
struct ConcurrencyTests {
    @Test("100 tasks refresh at once: one refresh request reaches the server, every task gets the same token")
    func hundredRefreshes() async throws {
        let server = try await SdkTestServer.shared.get()
        let recorder = RecordingTransport()
        let configuration = server.configuration(transport: recorder)
        let manager = try HaapiManager(haapiConfiguration: configuration)
        let oauth = OAuthTokenManager(oauthTokenConfiguration: configuration)
        let tokens = try await oauth.fetchAccessToken(with: try await manager.passwordLogin(), dpop: manager.dpop)
            .success()
        let refreshToken = try #require(tokens.refreshToken)

        let results = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<100 {
                group.addTask { try? await oauth.refreshAccessToken(with: refreshToken).success().accessToken }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(results.count == 100)
        #expect(results.allSatisfy { $0 != nil })
        #expect(Set(results.compactMap { $0 }).count == 1)
        #expect(
            await recorder.count {
                $0.path == "/oauth/token" && $0.form.contains("grant_type=refresh_token") && !$0.askedForNonce
            } == 1)
        await manager.close()
    }
}
