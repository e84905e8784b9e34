import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

/// `haapiTokenManagerIsClosed` and `haapiTokenManagerIsExpired`, where each is raised: a closed manager asked
/// again, and a client whose token the server refused after its manager was closed.
@Suite("HaapiClient: a closed or expired token manager used again")
struct HaapiClientExpiryTests {
    /// Answers token requests with a token, and HAAPI requests with `invalid_token` after closing the manager.
    actor RefusingServer: HTTPTransport {
        var manager: HaapiTokenManager?
        func attach(_ manager: HaapiTokenManager) { self.manager = manager }

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            if request.url.path == "/oauth/token" {
                let body = #"{"access_token":"t","token_type":"DPoP","expires_in":300}"#
                return HTTPResponse(
                    statusCode: 200, headers: ["content-type": "application/json"], body: Data(body.utf8),
                    url: request.url)
            }
            await manager?.close()
            return HTTPResponse(
                statusCode: 401, headers: ["www-authenticate": #"DPoP error="invalid_token""#], body: Data(),
                url: request.url)
        }
    }

    static func manager(_ transport: any HTTPTransport) throws -> HaapiTokenManager {
        let endpoint = try #require(URL(string: "https://login.example.com/oauth/token"))
        return try HaapiTokenManagerBuilder(tokenEndpoint: endpoint, clientId: "c")
            .setName("expiry-\(UUID().uuidString)").setTransport(transport)
            .setClientAuthenticationMethod(ClientAuthenticationMethodSecret("s")).disableDeviceCheckAttestation()
            .build()
    }

    @Test("the server refuses the token and the manager was closed meanwhile: haapiTokenManagerIsExpired")
    func expired() async throws {
        let server = RefusingServer()
        let manager = try Self.manager(server)
        await server.attach(manager)
        let client = manager.createClient()
        let url = try #require(URL(string: "https://login.example.com/oauth/authorize"))
        let sent = await #expect(throws: HaapiError.self) {
            _ = try await client.send(HaapiRequest(method: "GET", url: url))
        }
        #expect(sent?.error == "haapi_token_manager_is_expired", "\(String(describing: sent))")
        // The manager itself, asked again: closed.
        let asked = await #expect(throws: HaapiError.self) { _ = try await manager.getHaapiTokenAsync() }
        #expect(asked?.error == "haapi_token_manager_is_closed")
    }
}
