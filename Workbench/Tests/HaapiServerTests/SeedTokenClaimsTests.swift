import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import Testing

@testable import HaapiServer

/// Tokens as seed 003 describes the vendor's (issue 32, item 10): the CAT's `jkt` and `data`; the HAAPI
/// token's `dpl`, `attestation`, `cal`, `cap` and `aud` list; `session_state` in the authorization response;
/// and refresh tokens kept unrotated when a client asks for it.
@Suite("Seed 003's token shapes")
struct SeedTokenClaimsTests {
    static func payload(_ jwt: String?) throws -> JSONObject {
        try CompactJWS(parsing: try #require(jwt)).payloadObject()
    }

    @Test("the CAT carries jkt and data; the HAAPI token dpl, attestation, cal, cap and an aud list")
    func attestedTokens() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        let cat = try Self.payload(try await device.clientAttestationToken())
        #expect(cat["jkt"]?.stringValue == device.key.thumbprint)
        #expect(cat["cnf"]?["jkt"]?.stringValue == device.key.thumbprint)
        #expect(cat["data"]?["format"]?.stringValue == "software")

        try await device.obtainHaapiToken()
        let haapi = try Self.payload(device.haapiToken)
        #expect(haapi["dpl"]?.numberValue?.intValue == 0)
        #expect(haapi["attestation"]?["format"]?.stringValue == "software")
        #expect(haapi["attestation"]?["type"]?.stringValue == "software")
        #expect(haapi["cal"]?.stringValue == "by-policy")
        #expect(haapi["cap"]?.stringValue == "software-dev-policy")
        let audience = try #require(haapi["aud"]?.arrayValue).compactMap(\.stringValue)
        #expect(audience == [server.base + "/oauth/authorize", server.base + "/authn/authenticate"])
        #expect(haapi["cnf"]?["jkt"]?.stringValue == device.key.thumbprint && haapi["purpose"] == "haapi")
    }

    @Test("a HAAPI token from client credentials says so (cal) and carries no attestation")
    func clientCredentialsToken() async throws {
        var configuration = try TestConfiguration.make()
        configuration.clients.append(
            ClientConfiguration(
                id: "cc-haapi", secret: "cc-haapi-secret", authenticationMethod: .clientSecretBasic,
                allowWithoutAttestation: true, redirectURIs: ["app://cc"], scopes: ["openid"]))
        let server = try await TestServer(configuration: configuration)
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base, clientID: "cc-haapi")
        let tokenURL = device.url("/oauth/token")
        let response = try await RawHTTP.form(
            tokenURL, [("grant_type", "client_credentials"), ("scope", "urn:se:curity:scopes:haapi")],
            headers: [RawHTTP.basic("cc-haapi", "cc-haapi-secret"), ("DPoP", try device.proof("POST", tokenURL))])
        let claims = try Self.payload(response.json["access_token"]?.stringValue)
        #expect(claims["cal"]?.stringValue == "client-authentication")
        #expect(claims["attestation"] == nil && claims["cap"] == nil && claims["dpl"]?.numberValue?.intValue == 0)
    }

    @Test("the authorization response carries session_state, in the properties and the redirect link")
    func sessionState() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let login = try await device.startAuthenticator("password")
        let redirect = try await device.submit(
            login.json["actions"]?[0], [("userName", "demouser"), ("password", "Password1")])
        let final = try await device.submit(redirect.json["actions"]?[0])
        let state = try #require(final.json["properties"]?["session_state"]?.stringValue, "\(final.text)")
        let parts = state.split(separator: ".")
        #expect(parts.count == 2 && Data(base64Encoded: String(parts[0]))?.count == 32 && !parts[1].isEmpty)
        let link = try #require(final.json["links"]?[0]?["href"]?.stringValue)
        let query = try #require(URLComponents(string: link)?.queryItems)
        #expect(query.first { $0.name == "session_state" }?.value == state)
        // The SDK's model reads it.
        let step = try HaapiDecoder().decode(final.body, contentType: "application/vnd.auth+json")
        guard case .representation(let representation) = step,
            let response = representation as? OAuthAuthorizationResponseStep
        else {
            Issue.record("not an authorization response: \(final.text)")
            return
        }
        #expect(response.oauthAuthorizationResponseProperties.sessionState == state)
    }

    @Test("reuseRefreshTokens: a refresh returns the same refresh token, which keeps working; the default rotates")
    func reuseRefreshTokens() async throws {
        var configuration = try TestConfiguration.make()
        configuration.clients.append(
            ClientConfiguration(
                id: "reuse-client", attestation: .software, redirectURIs: ["app://reuse"],
                scopes: ["openid", "profile"],
                reuseRefreshTokens: true))
        let server = try await TestServer(configuration: configuration)
        defer { Task { await server.stop() } }
        func refreshToken(for clientID: String, redirect: String) async throws -> (HaapiDevice, String) {
            let device = HaapiDevice(base: server.base, clientID: clientID)
            try await device.obtainHaapiToken()
            let tokens = try await device.redeem(
                code: try await device.passwordLogin(redirectURI: redirect), redirectURI: redirect)
            return (device, try #require(tokens.json["refresh_token"]?.stringValue, "\(tokens.text)"))
        }
        let (device, token) = try await refreshToken(for: "reuse-client", redirect: "app://reuse")
        for _ in 0..<3 {
            let refreshed = try await device.refresh(token)
            #expect(refreshed.json["refresh_token"]?.stringValue == token, "\(refreshed.text)")
            #expect(refreshed.json["access_token"]?.stringValue != nil)
        }
        let (rotating, first) = try await refreshToken(for: "legacy-client", redirect: "app://legacy")
        let rotated = try await rotating.refresh(first)
        #expect(rotated.json["refresh_token"]?.stringValue != first && rotated.json["refresh_token"] != nil)
    }
}
