import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

@Suite("Published JOSE, PKCE and DPoP vectors")
struct PublishedVectorTests {
    @Test("RFC 7638 §3.1: RSA thumbprint, canonical input and hash octets")
    func rsaThumbprint() throws {
        let jwk = try JWK(jsonString: Vectors.rfc7638RSAKey)
        #expect(jwk.thumbprintInput().hasPrefix("{\"e\":\"AQAB\",\"kty\":\"RSA\",\"n\":\"0vx7agoeb"))
        #expect(!jwk.thumbprintInput().contains("kid"))
        #expect(Array(SHA256.hash(data: Data(jwk.thumbprintInput().utf8))) == Vectors.rfc7638ThumbprintSHA256)
        #expect(jwk.thumbprint() == Vectors.rfc7638Thumbprint)
    }

    @Test("RFC 9449 §6.1: EC jkt of the example key, whatever the member order")
    func ecThumbprint() throws {
        let jwk = try JWK(jsonString: Vectors.dpopKey)
        #expect(jwk.thumbprint() == Vectors.dpopJKT)
        #expect(
            jwk.thumbprintInput()
                == #"{"crv":"P-256","kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"}"#
        )
    }

    @Test("RFC 7636 App. B: S256 challenge")
    func pkce() {
        #expect(PKCE.challenge(for: Vectors.pkceVerifier) == Vectors.pkceChallenge)
        #expect(PKCE(verifier: Vectors.pkceVerifier).codeChallenge == Vectors.pkceChallenge)
        #expect(PKCE.isValidVerifier(Vectors.pkceVerifier))
    }

    @Test("RFC 7515 A.1: HS256 signature is byte-exact")
    func hs256() throws {
        let signer = try JWK(jsonString: Vectors.hs256Key).signer(algorithm: .hs256)
        let jws = try JWS.sign(encodedHeader: Vectors.hs256Header, payload: Vectors.jwsPayloadBytes, signer: signer)
        #expect(jws == "\(Vectors.hs256Header).\(Vectors.jwsPayload).\(Vectors.hs256Signature)")
        try CompactJWS(parsing: jws).verify(with: JWK(jsonString: Vectors.hs256Key), allowedAlgorithms: [.hs256])
    }

    @Test("RFC 7515 A.2: RS256 signature is byte-exact")
    func rs256() throws {
        let key = try JWK(jsonString: Vectors.rs256Key)
        let jws = try JWS.sign(
            encodedHeader: Vectors.rs256Header, payload: Vectors.jwsPayloadBytes, signer: key.signer(algorithm: .rs256))
        #expect(jws == "\(Vectors.rs256Header).\(Vectors.jwsPayload).\(Vectors.rs256Signature)")
        try CompactJWS(parsing: jws).verify(with: key.publicKey(), allowedAlgorithms: [.rs256])
    }

    @Test("RFC 7515 A.3: the published ES256 signature verifies; a flipped bit does not")
    func es256() throws {
        let key = try JWK(jsonString: Vectors.es256Key).publicKey()
        let compact = "\(Vectors.es256Header).\(Vectors.jwsPayload).\(Vectors.es256Signature)"
        try CompactJWS(parsing: compact).verify(with: key, allowedAlgorithms: [.es256])
        var signature = Base64URL.decode(Vectors.es256Signature) ?? []
        signature[10] ^= 0x01
        let tampered = "\(Vectors.es256Header).\(Vectors.jwsPayload).\(Base64URL.encode(signature))"
        #expect(throws: JOSEError.invalidSignature) {
            try CompactJWS(parsing: tampered).verify(with: key, allowedAlgorithms: [.es256])
        }
    }

    @Test("RFC 9449 Figs. 4, 7, 14: the three published proofs verify with their header jwk")
    func dpopProofs() throws {
        let token = try DPoPProof(parsing: Vectors.dpopTokenRequestProof)
        #expect(token.htm == "POST")
        #expect(token.htu == "https://server.example.com/token")
        #expect(token.iat == 1_562_262_616)
        #expect(token.jti == "-BwC3ESc6acc2lTc")
        #expect(token.thumbprint == Vectors.dpopJKT)

        let refresh = try DPoPProof(parsing: Vectors.dpopRefreshProof)
        #expect(refresh.iat == 1_562_265_296)

        let resource = try DPoPProof(parsing: Vectors.dpopResourceProof)
        #expect(resource.htm == "GET")
        #expect(resource.htu == "https://resource.example.org/protectedresource")
        #expect(resource.ath == Vectors.dpopAth)
    }

    @Test("RFC 9449 §7.1: ath is base64url SHA-256 of the token alone")
    func ath() {
        #expect(Dpop.accessTokenHash(Vectors.dpopAccessToken) == Vectors.dpopAth)
        #expect(Dpop.accessTokenHash("DPoP " + Vectors.dpopAccessToken) != Vectors.dpopAth)
    }
}
