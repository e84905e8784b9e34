import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

@Suite("JWS and JWK")
struct JOSETests {
    static let payload = Data(#"{"sub":"alice","n":1}"#.utf8)

    static func privateJWK(for algorithm: JWSAlgorithm) throws -> JWK {
        switch algorithm.family {
        case .hmac:
            return try JWK(json: [
                "kty": "oct", "k": .string(Base64URL.encode(SecureRandom.bytes(algorithm.hashBits / 8))),
            ])
        case .ecdsa:
            let scalar: Data
            let x963: Data
            switch algorithm {
            case .es384:
                let key = P384.Signing.PrivateKey()
                (scalar, x963) = (key.rawRepresentation, key.publicKey.x963Representation)
            case .es512:
                let key = P521.Signing.PrivateKey()
                (scalar, x963) = (key.rawRepresentation, key.publicKey.x963Representation)
            default:
                let key = P256.Signing.PrivateKey()
                (scalar, x963) = (key.rawRepresentation, key.publicKey.x963Representation)
            }
            let length = (x963.count - 1) / 2
            return try JWK(json: [
                "kty": "EC", "crv": .string(algorithm.curve ?? ""),
                "x": .string(Base64URL.encode(x963.dropFirst().prefix(length))),
                "y": .string(Base64URL.encode(x963.suffix(length))),
                "d": .string(Base64URL.encode(scalar)),
            ])
        case .rsaPKCS1, .rsaPSS:
            // The RFC 7515 A.2 key is a real 2048-bit key; reuse it instead of generating one per test.
            return try JWK(jsonString: Vectors.rs256Key)
        }
    }

    @Test("every algorithm signs and verifies, and rejects a changed payload", arguments: JWSAlgorithm.allCases)
    func roundTrip(algorithm: JWSAlgorithm) throws {
        let key = try Self.privateJWK(for: algorithm)
        let jws = try JWS.sign(payload: Self.payload, header: ["typ": "JWT"], signer: key.signer(algorithm: algorithm))
        let parsed = try CompactJWS(parsing: jws)
        #expect(parsed.algorithm == algorithm)
        #expect(parsed.header["typ"] == "JWT")
        #expect(parsed.payload == Self.payload)
        let verifyingKey = algorithm.family == .hmac ? key : try key.publicKey()
        try parsed.verify(with: verifyingKey, allowedAlgorithms: [algorithm])

        let segments = jws.split(separator: ".")
        let forged = "\(segments[0]).\(Base64URL.encode(Data(#"{"sub":"mallory","n":1}"#.utf8))).\(segments[2])"
        #expect(throws: JOSEError.invalidSignature) {
            try CompactJWS(parsing: forged).verify(with: verifyingKey, allowedAlgorithms: [algorithm])
        }
    }

    @Test("a compact JWS has exactly three base64url segments; each wrong one is named")
    func compactSegments() throws {
        let cases: [(String, String)] = [
            ("", "expected 3 segments, found 1"), ("a.b", "expected 3 segments, found 2"),
            ("e30.e30.AA.x", "expected 3 segments, found 4"), ("e3+.e30.AA", "header is not base64url"),
            ("e30.e3=.AA", "payload is not base64url"), ("e30.e30.A", "signature is not base64url"),
        ]
        for (compact, message) in cases {
            #expect(throws: JOSEError.malformedJWS(message)) { try CompactJWS(parsing: compact) }
        }
        // The header must be a JSON object with "alg"; the signing input is the first two segments as sent.
        let header = Base64URL.encode(#"{"alg":"ES256"}"#)
        let parsed = try CompactJWS(parsing: header + ".e30.AQI")
        #expect(parsed.signingInput == Data((header + ".e30").utf8))
        #expect(parsed.payload == Data("{}".utf8) && parsed.signature == Data([1, 2]))
    }

    @Test("ECDSA signatures are R‖S of the curve's size, not DER")
    func ecdsaSignatureSize() throws {
        for (algorithm, size) in [(JWSAlgorithm.es256, 64), (.es384, 96), (.es512, 132)] {
            let signer = try Self.privateJWK(for: algorithm).signer(algorithm: algorithm)
            #expect(try signer.signature(for: Self.payload).count == size)
        }
    }

    @Test("PS256 is randomised but verifies; RS256 is deterministic")
    func rsaPaddingModes() throws {
        let key = try JWK(jsonString: Vectors.rs256Key)
        let pss = try key.signer(algorithm: .ps256)
        #expect(try pss.signature(for: Self.payload) != pss.signature(for: Self.payload))
        let pkcs1 = try key.signer(algorithm: .rs256)
        #expect(try pkcs1.signature(for: Self.payload) == pkcs1.signature(for: Self.payload))
        // A PS256 signature must not pass as RS256 and vice versa.
        let jws = try JWS.sign(payload: Self.payload, signer: pss)
        let parts = jws.split(separator: ".")
        let relabelled = "\(Base64URL.encode(Data(#"{"alg":"RS256"}"#.utf8))).\(parts[1]).\(parts[2])"
        #expect(throws: JOSEError.invalidSignature) {
            try CompactJWS(parsing: relabelled).verify(with: key.publicKey(), allowedAlgorithms: [.rs256])
        }
    }

    @Test("verification refuses algorithms outside the allow-list, alg none, and key/alg mismatches")
    func algorithmPolicy() throws {
        let key = try Self.privateJWK(for: .es256)
        let jws = try JWS.sign(payload: Self.payload, signer: key.signer())
        #expect(throws: JOSEError.algorithmNotAllowed("ES256")) {
            try CompactJWS(parsing: jws).verify(with: key.publicKey(), allowedAlgorithms: [.rs256])
        }
        let unsigned = "\(Base64URL.encode(Data(#"{"alg":"none"}"#.utf8))).\(Base64URL.encode(Self.payload))."
        #expect(throws: JOSEError.algorithmNotAllowed("none")) {
            try CompactJWS(parsing: unsigned).verify(
                with: key.publicKey(), allowedAlgorithms: Set(JWSAlgorithm.allCases))
        }
        // An HMAC token "signed" with a public key's bytes must not verify against an EC key.
        #expect(throws: JOSEError.keyDoesNotMatchAlgorithm(key: "EC P-256", algorithm: .hs256)) {
            try key.publicKey().verifier(algorithm: .hs256)
        }
        #expect(throws: JOSEError.notAPrivateKey) { try key.publicKey().signer() }
    }

    @Test(
        "malformed compact JWS values are rejected with a reason",
        arguments: [
            "", "a.b", "a.b.c.d", "!!.e30.", "e30.e30.", "eyJhbGciOiJFUzI1NiJ9.@@.AA",
            "eyJhbGciOiJFUzI1NiIsImNyaXQiOlsiZXhwIl0sImV4cCI6MX0.e30.AA",
        ])
    func malformed(compact: String) {
        #expect(throws: JOSEError.self) { try CompactJWS(parsing: compact) }
    }

    @Test("JWK validation: required members, base64url, coordinate length, unknown types")
    func jwkValidation() throws {
        #expect(throws: JOSEError.malformedJWK("missing \"kty\"")) { try JWK(json: ["x": "AA"]) }
        #expect(throws: JOSEError.unsupportedKeyType("XYZ")) { try JWK(json: ["kty": "XYZ"]) }
        #expect(throws: JOSEError.unsupportedCurve("P-192")) {
            try JWK(json: ["kty": "EC", "crv": "P-192", "x": "AA", "y": "AA"])
        }
        #expect(throws: JOSEError.malformedJWK("\"x\" must be 32 bytes for P-256")) {
            try JWK(json: [
                "kty": "EC", "crv": "P-256", "x": "AAAA", "y": "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA",
            ])
        }
        #expect(throws: JOSEError.malformedJWK("\"n\" is not base64url")) {
            try JWK(json: ["kty": "RSA", "n": "a+b/", "e": "AQAB"])
        }
        #expect(throws: JOSEError.self) { try JWK(jsonString: "{not json") }
    }

    @Test("public halves and descriptions never carry private members")
    func privateMembersStayPrivate() throws {
        let rsa = try JWK(jsonString: Vectors.rs256Key)
        #expect(rsa.hasPrivateMembers)
        let publicRSA = try rsa.publicKey()
        #expect(!publicRSA.hasPrivateMembers)
        #expect(Set(publicRSA.members.keys) == ["kty", "n", "e"])
        #expect(publicRSA.thumbprint() == rsa.thumbprint())
        #expect(!rsa.description.contains("Eq5xpGnNCivDflJs"))
        let ec = SoftwareP256SigningKey().privateJWK
        let scalar = try #require(ec.members["d"]?.stringValue)
        #expect(!ec.description.contains(scalar))
    }

    @Test("a software P-256 key round-trips through its JWK and refuses mismatched coordinates")
    func softwareKeyJWK() throws {
        let key = SoftwareP256SigningKey()
        let reloaded = try SoftwareP256SigningKey(jwk: JWK(jsonString: key.privateJWK.jsonString))
        #expect(reloaded.thumbprint == key.thumbprint)
        var members = key.privateJWK.members
        members["x"] = SoftwareP256SigningKey().publicJWK.members["x"]
        #expect(throws: JOSEError.malformedJWK("\"x\"/\"y\" do not belong to \"d\"")) {
            try SoftwareP256SigningKey(jwk: JWK(json: .object(members)))
        }
        #expect(throws: JOSEError.self) { try SoftwareP256SigningKey(jwk: JWK(jsonString: Vectors.dpopKey)) }
    }
}
