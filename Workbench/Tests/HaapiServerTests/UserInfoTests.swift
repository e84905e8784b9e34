import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import Testing

@testable import HaapiServer

/// The UserInfo endpoint as an RFC 9449 protected resource: the bound token only with the DPoP scheme and a
/// fresh proof of its key for this request, refusals as `401` with `WWW-Authenticate: DPoP error=…`.
@Suite("UserInfo: a DPoP-protected resource")
struct UserInfoTests {
    typealias D = DPoPTests

    /// A signed-in user's DPoP-bound access token, and the device that holds its key.
    static func signedIn() async throws -> (HaapiDevice, String) {
        let (_, device) = try await D.device()
        let tokens = try await device.redeem(code: try await device.passwordLogin())
        let token = try #require(tokens.json["access_token"]?.stringValue, "\(tokens.text)")
        #expect(tokens.json["token_type"]?.stringValue == "DPoP")
        return (device, token)
    }

    static func get(_ device: HaapiDevice, authorization: String, proof: String?) async throws -> RawResponse {
        var headers = [("Authorization", authorization)]
        if let proof { headers.append(("DPoP", proof)) }
        return try await RawHTTP.send("GET", device.url("/oauth/userinfo"), headers: headers)
    }

    @Test("the bound token with a proof of its key gets the user's claims; the server's nonce is demanded")
    func accepted() async throws {
        let (device, token) = try await Self.signedIn()
        let url = device.url("/oauth/userinfo")
        let response = try await Self.get(
            device, authorization: "DPoP " + token, proof: try device.proof("GET", url, accessToken: token))
        #expect(response.status == 200, "\(response.text)")
        #expect(response.json["sub"]?.stringValue == "demouser")
        // `openid profile` (the device's default scope): the names, not the e-mail address.
        #expect(response.json["preferred_username"]?.stringValue == "demouser")
        #expect(response.json["email"] == nil, "\(response.text)")
        // POST works too (OIDC Core §5.3.1), with a proof for POST.
        let posted = try await RawHTTP.send(
            "POST", url,
            headers: [("Authorization", "DPoP " + token), ("DPoP", try device.proof("POST", url, accessToken: token))])
        #expect(posted.status == 200 && posted.json["sub"]?.stringValue == "demouser", "\(posted.text)")
        // haapi-demo is a nonce client: a proof without the nonce is refused with a fresh one.
        var claims = D.claims(device, method: "GET", url: url, nonce: .some(nil))
        claims["ath"] = .string(Dpop.accessTokenHash(token))
        let missing = try await Self.get(
            device, authorization: "DPoP " + token, proof: try D.sign(claims, key: device.key))
        D.expectRejected(missing, error: "use_dpop_nonce")
        #expect(missing.header("DPoP-Nonce") != nil)
    }

    @Test("refused: Bearer scheme, no proof, another key, a replay, a wrong htm, no ath, an unknown token")
    func refused() async throws {
        let (device, token) = try await Self.signedIn()
        let url = device.url("/oauth/userinfo")
        let bearer = try await Self.get(device, authorization: "Bearer " + token, proof: nil)
        D.expectRejected(bearer, error: "invalid_token")
        D.expectRejected(try await Self.get(device, authorization: "DPoP " + token, proof: nil))

        let stranger = HaapiDevice(base: device.base, key: SoftwareP256SigningKey())
        stranger.nonce = device.nonce
        let otherKey = try await Self.get(
            device, authorization: "DPoP " + token, proof: try stranger.proof("GET", url, accessToken: token))
        D.expectRejected(otherKey)

        let once = try device.proof("GET", url, accessToken: token)
        #expect(try await Self.get(device, authorization: "DPoP " + token, proof: once).status == 200)
        D.expectRejected(try await Self.get(device, authorization: "DPoP " + token, proof: once))

        D.expectRejected(
            try await Self.get(
                device, authorization: "DPoP " + token, proof: try device.proof("POST", url, accessToken: token)))
        D.expectRejected(
            try await Self.get(device, authorization: "DPoP " + token, proof: try device.proof("GET", url)))
        let unknown = try await Self.get(
            device, authorization: "DPoP not-a-token", proof: try device.proof("GET", url, accessToken: "not-a-token"))
        D.expectRejected(unknown, error: "invalid_token")
    }

    @Test("a token without openid (a dcr client-credentials token) is insufficient_scope")
    func insufficientScope() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base, clientID: "haapi-dcr-main", key: SoftwareP256SigningKey())
        let tokenURL = device.url("/oauth/token")
        func request() async throws -> RawResponse {
            try await RawHTTP.form(
                tokenURL, [("grant_type", "client_credentials"), ("scope", "dcr")],
                headers: [
                    RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me"),
                    ("DPoP", try device.proof("POST", tokenURL)),
                ])
        }
        var response = try await request()
        if response.json["error"] == "use_dpop_nonce" {
            device.remember(response)
            response = try await request()
        }
        let token = try #require(response.json["access_token"]?.stringValue, "\(response.text)")
        let refused = try await Self.get(
            device, authorization: "DPoP " + token,
            proof: try device.proof("GET", device.url("/oauth/userinfo"), accessToken: token))
        D.expectRejected(refused, error: "insufficient_scope")
    }

    @Test("discovery names the endpoint")
    func discovery() async throws {
        let server = try await TestServer.shared.get()
        let document = try await RawHTTP.send("GET", server.base + "/.well-known/openid-configuration")
        #expect(document.json["userinfo_endpoint"]?.stringValue == server.base + "/oauth/userinfo")
    }
}
