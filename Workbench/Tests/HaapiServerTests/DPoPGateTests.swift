import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import Testing

@testable import HaapiServer

/// Every endpoint that takes a DPoP proof goes through one gate and refuses in its RFC 9449 shape: the
/// authorization server's 400 (`invalid_dpop_proof`, `use_dpop_nonce` with `DPoP-Nonce`), a protected
/// resource's 401 with `WWW-Authenticate: DPoP`, and 503 with `Retry-After` past the proof budget.
@Suite("DPoP gate: one policy table, RFC 9449 refusal shapes per endpoint")
struct DPoPGateTests {
    typealias D = DPoPTests

    static func expectAuthorizationServerRefusal(
        _ response: RawResponse, _ error: String = "invalid_dpop_proof",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == 400, "\(response.status) \(response.text)", sourceLocation: sourceLocation)
        #expect(response.json["error"]?.stringValue == error, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.header("WWW-Authenticate") == nil, sourceLocation: sourceLocation)
    }

    @Test("the policy table: which endpoints demand a nonce, bind an access token, and refuse in which shape")
    func policyTable() {
        #expect(DPoPEndpoint.token.policy.shape == .authorizationServer && DPoPEndpoint.token.policy.demandsNonce)
        #expect(!DPoPEndpoint.clientAttestation.policy.demandsNonce)
        #expect(DPoPEndpoint.haapi.policy.shape == .protectedResource && DPoPEndpoint.haapi.policy.presentsAccessToken)
        #expect(DPoPEndpoint.registration.policy.shape == .protectedResource)
        #expect(DPoPEndpoint.userinfo.policy.shape == .protectedResource && DPoPEndpoint.userinfo.policy.demandsNonce)
    }

    @Test("token endpoint: a wrong htu is 400 invalid_dpop_proof; no nonce is 400 use_dpop_nonce with DPoP-Nonce")
    func tokenEndpoint() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        let cat = try await device.clientAttestationToken()
        let tokenURL = device.url("/oauth/token")
        let form: [(String, String)] = [
            ("grant_type", "client_credentials"), ("scope", "urn:se:curity:scopes:haapi"),
            ("client_assertion_type", "urn:se:curity:attestation:client"), ("client_assertion", cat),
        ]
        var claims = D.claims(device, method: "POST", url: device.url("/oauth/other"))
        claims["ath"] = nil
        let wrongURL = try await RawHTTP.form(tokenURL, form, headers: [("DPoP", try D.sign(claims, key: device.key))])
        Self.expectAuthorizationServerRefusal(wrongURL)
        var noNonce = D.claims(device, method: "POST", url: tokenURL, nonce: .some(nil))
        noNonce["ath"] = nil
        let missing = try await RawHTTP.form(tokenURL, form, headers: [("DPoP", try D.sign(noNonce, key: device.key))])
        Self.expectAuthorizationServerRefusal(missing, "use_dpop_nonce")
        #expect(missing.header("DPoP-Nonce") != nil)
    }

    @Test("HAAPI endpoints: 401 with WWW-Authenticate: DPoP error=…, and use_dpop_nonce with DPoP-Nonce")
    func haapiEndpoint() async throws {
        let (_, device) = try await D.device()
        let claims = D.claims(device, method: "POST")
        D.expectRejected(try await D.authorize(device, proofs: [try D.sign(claims, key: device.key)]))
        let noNonce = try D.sign(D.claims(device, nonce: .some(nil)), key: device.key)
        let response = try await D.authorize(device, proofs: [noNonce])
        D.expectRejected(response, error: "use_dpop_nonce")
        #expect(response.header("DPoP-Nonce") != nil)
    }

    @Test("registration endpoint: a bad proof is a protected resource's 401 with WWW-Authenticate: DPoP")
    func registrationEndpoint() async throws {
        let server = try await TestServer.shared.get()
        let key = SoftwareP256SigningKey()
        let device = HaapiDevice(base: server.base, clientID: "haapi-dcr-main", key: key)
        let tokenURL = device.url("/oauth/token")
        var response = try await RawHTTP.form(
            tokenURL, [("grant_type", "client_credentials"), ("scope", "dcr")],
            headers: [
                RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me"),
                ("DPoP", try device.proof("POST", tokenURL)),
            ])
        if response.json["error"] == "use_dpop_nonce" {
            device.remember(response)
            response = try await RawHTTP.form(
                tokenURL, [("grant_type", "client_credentials"), ("scope", "dcr")],
                headers: [
                    RawHTTP.basic("haapi-dcr-main", "dcr-main-secret-change-me"),
                    ("DPoP", try device.proof("POST", tokenURL)),
                ])
        }
        let token = try #require(response.json["access_token"]?.stringValue, "\(response.text)")
        let registerURL = device.url("/oauth/register")
        let wrongMethod = try device.proof("GET", registerURL, accessToken: token)
        let refused = try await RawHTTP.send(
            "POST", registerURL,
            headers: [("Authorization", "DPoP \(token)"), ("DPoP", wrongMethod), ("Content-Type", "application/json")],
            body: Data(#"{"software_id":"haapi-dcr-template"}"#.utf8))
        D.expectRejected(refused)
    }

    @Test("attestation endpoint: htm, htu, iat and replay are checked; a refused proof leaves the challenge usable")
    func attestationEndpoint() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        let catURL = device.url("/oauth/token/cat")
        func attest(_ challenge: String, proof: String) async throws -> RawResponse {
            try await RawHTTP.form(
                catURL,
                [
                    ("client_id", "haapi-demo"), ("challenge", challenge),
                    (
                        "challenge_response",
                        try HaapiDevice.attestation(challenge: challenge, clientID: "haapi-demo", key: device.key)
                    ),
                ], headers: [("DPoP", proof)])
        }
        func proof(method: String = "POST", url: String? = nil, iat: Date = Date(), jti: String? = nil) throws -> String
        {
            var claims = D.claims(device, method: method, url: url ?? catURL, iat: iat, nonce: .some(nil))
            claims["ath"] = nil
            if let jti { claims["jti"] = .string(jti) }
            return try D.sign(claims, key: device.key)
        }
        let challenge = try await device.challenge()
        Self.expectAuthorizationServerRefusal(try await attest(challenge, proof: try proof(method: "GET")))
        Self.expectAuthorizationServerRefusal(
            try await attest(challenge, proof: try proof(url: device.url("/oauth/token"))))
        Self.expectAuthorizationServerRefusal(try await attest(challenge, proof: try proof(iat: Date() - 600)))
        let good = try proof()
        let accepted = try await attest(challenge, proof: good)
        #expect(accepted.json["cat"]?.stringValue != nil, "\(accepted.text)")
        // The same proof again, with a fresh challenge: a replay.
        Self.expectAuthorizationServerRefusal(try await attest(try await device.challenge(), proof: good))
    }

    @Test("past the proof budget: 503 with Retry-After (token endpoint and HAAPI), and a later proof is accepted")
    func overBudget() async throws {
        var configuration = try TestConfiguration.make()
        configuration.dpop.maxProofsPerSecond = 1  // 4 proofs a 4-second slice
        let clock = TestClock()
        let server = try await TestServer(configuration: configuration, clock: clock)
        let device = HaapiDevice(base: server.base, clock: { clock.now })
        try await device.obtainHaapiToken()
        // Proofs made in one second fall due in one second, so they share a slice, whatever the machine's pace.
        let made = clock.now
        var refused: RawResponse?
        for _ in 0..<10 {
            let response = try await D.authorize(
                device, proofs: [try D.sign(D.claims(device, iat: made), key: device.key)])
            if response.status == 503 {
                refused = response
                break
            }
        }
        let overload = try #require(refused)
        #expect(overload.json["error"]?.stringValue == "temporarily_unavailable")
        let retryAfter = try #require(overload.header("Retry-After").flatMap(Int.init))
        #expect((1...4).contains(retryAfter))
        clock.advance(TimeInterval(retryAfter))
        let later = try await D.authorize(
            device, proofs: [try D.sign(D.claims(device, iat: clock.now), key: device.key)])
        #expect(later.status == 200, "\(later.text)")
        await server.stop()
    }
}
