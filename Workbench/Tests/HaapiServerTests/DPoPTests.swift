import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import Testing

@testable import HaapiServer

/// Every check of RFC 9449 §4.3 plus ath and the cnf.jkt binding, each with a request that fails only that check.
@Suite("DPoP verification (item 4)")
struct DPoPTests {
    static func device() async throws -> (TestServer, HaapiDevice) {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        return (server, device)
    }

    /// haapi-demo is a public client, so its authorize requests carry PKCE (a fixed, valid S256 challenge).
    static let authorizePath =
        "/oauth/authorize?client_id=haapi-demo&response_type=code&redirect_uri=app%3A%2F%2Fhaapi"
        + "&code_challenge=\(PKCE(verifier: String(repeating: "v", count: 43)).codeChallenge)&code_challenge_method=S256"

    /// Sends the authorize request with the proof(s) given instead of a correct one.
    static func authorize(_ device: HaapiDevice, proofs: [String], token: String? = nil) async throws -> RawResponse {
        var headers = [
            ("Accept", "application/vnd.auth+json"), ("Authorization", "DPoP " + (token ?? device.haapiToken ?? "")),
        ]
        headers += proofs.map { ("DPoP", $0) }
        return try await RawHTTP.send("GET", device.url(authorizePath), headers: headers)
    }

    static func claims(
        _ device: HaapiDevice, method: String = "GET", url: String? = nil, iat: Date = Date(),
        ath: String? = nil, nonce: String?? = .none
    ) -> JSONObject {
        var claims: JSONObject = [
            "jti": .string(SecureRandom.token(byteCount: 16)), "htm": .string(method),
            "htu": .string(url ?? device.url("/oauth/authorize")),
            "iat": .number(JSONNumber(Int(iat.timeIntervalSince1970))),
            "ath": .string(ath ?? Dpop.accessTokenHash(device.haapiToken ?? "")),
        ]
        switch nonce {
        case .none: if let current = device.nonce { claims["nonce"] = .string(current) }
        case .some(let value?): claims["nonce"] = .string(value)
        case .some(nil): break
        }
        return claims
    }

    static func sign(
        _ claims: JSONObject, key: SoftwareP256SigningKey, typ: String = "dpop+jwt", jwk: JWK? = nil
    ) throws -> String {
        try JWS.sign(claims: claims, header: ["typ": .string(typ), "jwk": (jwk ?? key.publicJWK).json], signer: key)
    }

    static func expectRejected(
        _ response: RawResponse, error: String = "invalid_dpop_proof", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == 401, "\(response.status) \(response.text)", sourceLocation: sourceLocation)
        #expect(
            response.header("WWW-Authenticate")?.hasPrefix("DPoP error=\"\(error)\"") == true,
            "\(response.header("WWW-Authenticate") ?? "no challenge")", sourceLocation: sourceLocation)
    }

    @Test("a correct proof is accepted (the baseline every negative case changes one thing of)")
    func baseline() async throws {
        let (_, device) = try await Self.device()
        let response = try await Self.authorize(device, proofs: [try Self.sign(Self.claims(device), key: device.key)])
        #expect(response.status == 200, "\(response.text)")
    }

    @Test("missing proof, two DPoP headers, a malformed proof")
    func headerShape() async throws {
        let (_, device) = try await Self.device()
        Self.expectRejected(try await Self.authorize(device, proofs: []))
        let one = try Self.sign(Self.claims(device), key: device.key)
        let two = try Self.sign(Self.claims(device), key: device.key)
        Self.expectRejected(try await Self.authorize(device, proofs: [one, two]))
        Self.expectRejected(try await Self.authorize(device, proofs: ["not.a.jwt"]))
    }

    @Test("typ, alg (symmetric), a signature from another key, a private key in jwk")
    func headerContents() async throws {
        let (_, device) = try await Self.device()
        Self.expectRejected(
            try await Self.authorize(device, proofs: [try Self.sign(Self.claims(device), key: device.key, typ: "JWT")]))
        let hmac = try JWK(json: ["kty": "oct", "k": .string(Base64URL.encode(SecureRandom.bytes(32)))]).signer(
            algorithm: .hs256)
        let symmetric = try JWS.sign(
            claims: Self.claims(device), header: ["typ": "dpop+jwt", "jwk": device.key.publicJWK.json], signer: hmac)
        Self.expectRejected(try await Self.authorize(device, proofs: [symmetric]))
        let impostor = SoftwareP256SigningKey()
        Self.expectRejected(
            try await Self.authorize(
                device, proofs: [try Self.sign(Self.claims(device), key: impostor, jwk: device.key.publicJWK)]))
        Self.expectRejected(
            try await Self.authorize(
                device, proofs: [try Self.sign(Self.claims(device), key: device.key, jwk: device.key.privateJWK)]))
    }

    @Test("an altered signature, or a signature by another key than the header's jwk, is refused")
    func signatures() async throws {
        let (_, device) = try await Self.device()
        let proof = try Self.sign(Self.claims(device), key: device.key)
        let segments = proof.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(segments[2]))
        signature[40] ^= 0x01
        let altered = segments[0] + "." + segments[1] + "." + Base64URL.encode(signature)
        Self.expectRejected(try await Self.authorize(device, proofs: [altered]))
        let impostor = SoftwareP256SigningKey()
        Self.expectRejected(
            try await Self.authorize(
                device, proofs: [try Self.sign(Self.claims(device), key: impostor, jwk: device.key.publicJWK)]))
        // The untouched proof still passes: the refusals above were for the signatures alone.
        let response = try await Self.authorize(device, proofs: [proof])
        #expect(response.status == 200, "\(response.text)")
    }

    @Test("htm, htu (userinfo too), an old iat and a future iat; algs as configured")
    func claimsChecks() async throws {
        let (server, device) = try await Self.device()
        Self.expectRejected(
            try await Self.authorize(
                device, proofs: [try Self.sign(Self.claims(device, method: "POST"), key: device.key)]))
        Self.expectRejected(
            try await Self.authorize(
                device, proofs: [try Self.sign(Self.claims(device, url: device.url("/oauth/token")), key: device.key)]))
        Self.expectRejected(
            try await Self.authorize(
                device,
                proofs: [try Self.sign(Self.claims(device, iat: Date().addingTimeInterval(-300)), key: device.key)]))
        Self.expectRejected(
            try await Self.authorize(
                device,
                proofs: [try Self.sign(Self.claims(device, iat: Date().addingTimeInterval(300)), key: device.key)]))
        // htu with userinfo names no request of this server, even when the rest matches.
        let withUser = device.url("/oauth/authorize").replacingOccurrences(of: "http://", with: "http://user@")
        Self.expectRejected(
            try await Self.authorize(
                device, proofs: [try Self.sign(Self.claims(device, url: withUser), key: device.key)]))
        // The challenge lists the algorithms the server accepts, as configured.
        let refused = try await Self.authorize(
            device, proofs: [try Self.sign(Self.claims(device, method: "POST"), key: device.key)])
        let algorithms = server.server.configuration.dpop.algorithms.sorted().joined(separator: " ")
        #expect(refused.header("WWW-Authenticate")?.hasSuffix("algs=\"\(algorithms)\"") == true)
        // htu is compared after RFC 3986 normalisation: scheme and host case and the query do not matter.
        let shouted = device.url("/oauth/authorize").replacingOccurrences(of: "http://", with: "HTTP://") + "?ignored=1"
        #expect(
            try await Self.authorize(
                device, proofs: [try Self.sign(Self.claims(device, url: shouted), key: device.key)]
            ).status == 200)
    }

    @Test("a replayed proof (same jti) is refused the second time")
    func replay() async throws {
        let (_, device) = try await Self.device()
        let proof = try Self.sign(Self.claims(device), key: device.key)
        #expect(try await Self.authorize(device, proofs: [proof]).status == 200)
        Self.expectRejected(try await Self.authorize(device, proofs: [proof]))
    }

    @Test("ath missing or for another token; a proof key that is not the token's cnf.jkt")
    func tokenBinding() async throws {
        let (_, device) = try await Self.device()
        var noAth = Self.claims(device)
        noAth["ath"] = nil
        Self.expectRejected(try await Self.authorize(device, proofs: [try Self.sign(noAth, key: device.key)]))
        Self.expectRejected(
            try await Self.authorize(
                device,
                proofs: [try Self.sign(Self.claims(device, ath: Dpop.accessTokenHash("other")), key: device.key)]))
        let stranger = SoftwareP256SigningKey()
        Self.expectRejected(
            try await Self.authorize(device, proofs: [try Self.sign(Self.claims(device), key: stranger)]))
    }

    @Test("nonce mode: a missing or unknown nonce gets 401 use_dpop_nonce with a fresh DPoP-Nonce")
    func nonceAtResourceEndpoints() async throws {
        let (_, device) = try await Self.device()
        for nonce in [nil, "made-up"] as [String?] {
            let response = try await Self.authorize(
                device, proofs: [try Self.sign(Self.claims(device, nonce: .some(nonce)), key: device.key)])
            Self.expectRejected(response, error: "use_dpop_nonce")
            #expect(response.header("DPoP-Nonce") != nil)
        }
    }

    @Test("nonce mode at the token endpoint: 400 use_dpop_nonce with DPoP-Nonce, then success with it")
    func nonceAtTokenEndpoint() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base)
        let cat = try await device.clientAttestationToken()
        device.nonce = nil
        let first = try await device.haapiTokenRequest(cat: cat)
        #expect(first.status == 400 && first.json["error"] == "use_dpop_nonce")
        #expect(first.header("DPoP-Nonce") != nil && device.nonce != nil)
        let second = try await device.haapiTokenRequest(cat: cat)
        #expect(second.status == 200, "\(second.text)")
    }

    @Test("a rotated nonce stays valid for one more period, then gets use_dpop_nonce")
    func nonceRotation() async throws {
        var configuration = try TestConfiguration.make()
        configuration.lifetimes.haapiAccessToken = 3600
        let server = try await TestServer(configuration: configuration)
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let stale = try #require(device.nonce)

        server.clock.advance(301)
        let withinGrace = try await Self.authorize(
            device,
            proofs: [try Self.sign(Self.claims(device, iat: server.clock.now, nonce: .some(stale)), key: device.key)])
        #expect(withinGrace.status == 200, "\(withinGrace.text)")
        let rotated = try #require(withinGrace.header("DPoP-Nonce"))
        #expect(rotated != stale)

        server.clock.advance(301)
        let expired = try await Self.authorize(
            device,
            proofs: [try Self.sign(Self.claims(device, iat: server.clock.now, nonce: .some(stale)), key: device.key)])
        Self.expectRejected(expired, error: "use_dpop_nonce")
        let fresh = try #require(expired.header("DPoP-Nonce"))
        let retried = try await Self.authorize(
            device,
            proofs: [try Self.sign(Self.claims(device, iat: server.clock.now, nonce: .some(fresh)), key: device.key)])
        #expect(retried.status == 200, "\(retried.text)")
        await server.stop()
    }

    @Test("legacy mode: no nonce needed, none sent")
    func legacyMode() async throws {
        let server = try await TestServer.shared.get()
        let device = HaapiDevice(base: server.base, clientID: "legacy-client")
        let token = try await device.obtainHaapiToken()
        #expect(token.status == 200 && token.header("DPoP-Nonce") == nil && device.nonce == nil)
        let redirect = try await device.authorize(redirectURI: "app://legacy")
        #expect(redirect.status == 200 && redirect.header("DPoP-Nonce") == nil)
    }

    @Test("the token must be a live HAAPI token, and the request must accept the HAAPI media type")
    func tokenAndAccept() async throws {
        let (_, device) = try await Self.device()
        let bogus = try await Self.authorize(
            device, proofs: [try Self.sign(Self.claims(device, ath: Dpop.accessTokenHash("bogus")), key: device.key)],
            token: "bogus")
        Self.expectRejected(bogus, error: "invalid_token")
        let noAccept = try await RawHTTP.send(
            "GET", device.url(Self.authorizePath),
            headers: [
                ("Authorization", "DPoP " + (device.haapiToken ?? "")),
                ("DPoP", try Self.sign(Self.claims(device), key: device.key)),
            ])
        #expect(noAccept.status == 406)
    }
}
