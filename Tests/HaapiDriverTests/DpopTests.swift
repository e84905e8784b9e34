import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

@Suite("DPoP proofs")
struct DpopTests {
    static let fixedDate = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("the proof has the RFC 9449 header and claims, and verifies with its own jwk")
    func proofShape() throws {
        let key = SoftwareP256SigningKey()
        let dpop = Dpop(key: key, clock: { Self.fixedDate }, jtiGenerator: { "fixed-jti" })
        let url = try #require(URL(string: "https://as.example.com:8443/oauth/token?client_id=a&x=1#frag"))
        let compact = try dpop.createProof(
            httpMethod: "post", url: url, nonce: "n-1", accessToken: Vectors.dpopAccessToken)

        let proof = try DPoPProof(parsing: compact)
        #expect(proof.jws.header["typ"] == "dpop+jwt")
        #expect(proof.jws.header["alg"] == "ES256")
        #expect(proof.jwk == key.publicJWK)
        #expect(!proof.jwk.hasPrivateMembers)
        #expect(proof.htm == "POST")
        #expect(proof.htu == "https://as.example.com:8443/oauth/token")
        #expect(proof.iat == 1_700_000_000)
        #expect(proof.jti == "fixed-jti")
        #expect(proof.nonce == "n-1")
        #expect(proof.ath == Vectors.dpopAth)
        #expect(proof.thumbprint == dpop.jwkThumbprint)
        #expect(Set(proof.claims.keys) == ["jti", "htm", "htu", "iat", "nonce", "ath"])
    }

    @Test("nonce and ath are left out when not given")
    func optionalClaims() throws {
        let dpop = Dpop(key: SoftwareP256SigningKey())
        let proof = try DPoPProof(
            parsing: dpop.createProof(httpMethod: "GET", url: #require(URL(string: "https://x.test/a"))))
        #expect(proof.nonce == nil)
        #expect(proof.ath == nil)
        #expect(abs(Double(proof.iat) - Date().timeIntervalSince1970) < 5)
    }

    @Test("jti is unique across many proofs")
    func uniqueJTI() throws {
        let dpop = Dpop(key: SoftwareP256SigningKey())
        let url = try #require(URL(string: "https://x.test/token"))
        var seen = Set<String>()
        for _ in 0..<500 {
            seen.insert(try DPoPProof(parsing: dpop.createProof(httpMethod: "POST", url: url)).jti)
        }
        #expect(seen.count == 500)
    }

    @Test(
        "htu drops query and fragment only",
        arguments: [
            ("https://a.test/p/q?x=1", "https://a.test/p/q"),
            ("https://a.test/p#f", "https://a.test/p"),
            (
                "http://127.0.0.1:8080/authn/authenticate?serviceProviderId=x&state=y#z",
                "http://127.0.0.1:8080/authn/authenticate"
            ),
            ("https://a.test", "https://a.test"),
            ("https://a.test/p#f?not-a-query", "https://a.test/p"),
            ("https://a.test/p?q=a#b", "https://a.test/p"),
            ("https://a.test:8443/%7Euser/p;x=1?q", "https://a.test:8443/%7Euser/p;x=1"),
        ])
    func htu(input: String, expected: String) throws {
        #expect(Dpop.htu(for: try #require(URL(string: input))) == expected)
    }

    @Test("a proof whose jwk holds a private key, or with the wrong typ, is rejected")
    func rejectsBadProofs() throws {
        let key = SoftwareP256SigningKey()
        let claims: JSONObject = ["jti": "j", "htm": "GET", "htu": "https://a.test/", "iat": 1]
        let leaky = try JWS.sign(claims: claims, header: ["typ": "dpop+jwt", "jwk": key.privateJWK.json], signer: key)
        #expect(throws: JOSEError.malformedJWS("the jwk header contains a private key")) {
            try DPoPProof(parsing: leaky)
        }
        let wrongType = try JWS.sign(claims: claims, header: ["typ": "JWT", "jwk": key.publicJWK.json], signer: key)
        #expect(throws: JOSEError.malformedJWS("typ must be dpop+jwt")) { try DPoPProof(parsing: wrongType) }
        let hmac = try JWK(jsonString: Vectors.hs256Key).signer(algorithm: .hs256)
        let symmetric = try JWS.sign(
            claims: claims, header: ["typ": "dpop+jwt", "jwk": key.publicJWK.json], signer: hmac)
        #expect(throws: JOSEError.algorithmNotAllowed("HS256")) { try DPoPProof(parsing: symmetric) }
        let otherKey = SoftwareP256SigningKey()
        let mismatched = try JWS.sign(
            claims: claims, header: ["typ": "dpop+jwt", "jwk": otherKey.publicJWK.json], signer: key)
        #expect(throws: JOSEError.invalidSignature) { try DPoPProof(parsing: mismatched) }
    }
}
