import Crypto
import Foundation

/// Makes DPoP proofs (RFC 9449 §4) with one key.
///
/// Each proof is a JWS with header `{"typ":"dpop+jwt","alg":…,"jwk":<public key>}` and claims `jti`
/// (fresh random), `htm`, `htu` (the URL without query and fragment), `iat`, and, when given,
/// `nonce` and `ath` = BASE64URL(SHA-256(access token)).
public struct Dpop: Sendable {
    /// The `typ` of a DPoP proof.
    public static let proofType = "dpop+jwt"

    /// The device key the proofs are signed with.
    public let key: any SigningKey
    private let clock: @Sendable () -> Date
    private let makeJTI: @Sendable () -> String
    /// The proof header, encoded once: `alg`, `typ` and `jwk` are the same in every proof of this key.
    private let encodedHeader: String?
    /// The key's RFC 7638 thumbprint, computed once.
    public let jwkThumbprint: String

    /// - Parameters:
    ///   - key: the device key the proofs are signed with; its public JWK goes in every proof's header.
    ///   - clock: the time for `iat`; injectable for tests.
    ///   - jtiGenerator: proof ids; the default is 128 random bits, so ids never repeat in practice.
    public init(
        key: any SigningKey,
        clock: @escaping @Sendable () -> Date = { Date() },
        jtiGenerator: @escaping @Sendable () -> String = { SecureRandom.token(byteCount: 16) }
    ) {
        self.key = key
        self.clock = clock
        self.makeJTI = jtiGenerator
        encodedHeader = try? Self.encodedHeader(for: key)
        jwkThumbprint = key.thumbprint
    }

    /// `{"alg":…,"typ":"dpop+jwt","jwk":…}`, base64url-encoded.
    private static func encodedHeader(for key: any SigningKey) throws -> String {
        let header: JSONValue = [
            "alg": .string(key.algorithm.rawValue), "typ": .string(proofType),
            "jwk": try key.publicJWK.publicKey().json,
        ]
        return Base64URL.encode(Data(header.serialized().utf8))
    }

    /// A proof for one request: `htm`, `htu` (without query or fragment), `iat`, a fresh `jti`, the server's `nonce`,
    /// and `ath` when the request carries `accessToken`.
    public func createProof(
        httpMethod: String, url: URL, nonce: String? = nil, accessToken: String? = nil
    ) throws -> String {
        var claims: JSONObject = [
            "jti": .string(makeJTI()),
            "htm": .string(httpMethod.uppercased()),
            "htu": .string(Self.htu(for: url)),
            "iat": .number(JSONNumber(Int(clock().timeIntervalSince1970))),
        ]
        if let nonce { claims["nonce"] = .string(nonce) }
        if let accessToken { claims["ath"] = .string(Self.accessTokenHash(accessToken)) }
        let payload = Data(JSONValue.object(claims).serialized().utf8)
        return try JWS.sign(
            encodedHeader: try encodedHeader ?? Self.encodedHeader(for: key), payload: payload, signer: key)
    }

    /// The `htu` for a request URL: the same URL without query and fragment (RFC 9449 §4.2).
    public static func htu(for url: URL) -> String {
        // The query starts at the first "?" and the fragment at the first "#" of an absolute URL's text
        // (RFC 3986 §3); cutting there avoids parsing the URL again for every request.
        let text = url.absoluteString
        guard let end = text.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else {
            return text
        }
        return String(text[..<end])
    }

    /// `ath`: BASE64URL(SHA-256(ASCII(token))). The hash covers the token only, not the `DPoP ` scheme.
    public static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(accessToken.utf8)))
    }
}

/// A received DPoP proof, parsed: its public key and claims. Verifying the claims against a request
/// (method, URL, time, nonce, replay) is the server's job; this type checks the proof's own shape.
public struct DPoPProof: Sendable {
    /// The proof as a parsed JWS.
    public let jws: CompactJWS
    /// The public key from the proof's header.
    public let jwk: JWK
    /// The proof's claims.
    public let claims: JSONObject
    /// The RFC 7638 thumbprint of `jwk`, computed once: the server compares it with bindings and keys its
    /// replay cache with it.
    public let thumbprint: String

    /// Parses a proof and checks RFC 9449 §4.3 items 2–7: one well-formed JWT, `typ` `dpop+jwt`,
    /// an allowed asymmetric `alg`, a public `jwk` with no private members, a signature that verifies
    /// with that key, and the `jti`, `htm`, `htu` and `iat` claims present.
    public init(
        parsing compact: String, allowedAlgorithms: Set<JWSAlgorithm> = [.es256, .es384, .es512, .rs256, .ps256]
    ) throws {
        let jws = try CompactJWS(parsing: compact)
        guard jws.header["typ"]?.stringValue == Dpop.proofType else {
            throw JOSEError.malformedJWS("typ must be \(Dpop.proofType)")
        }
        let declared = jws.header["alg"]?.stringValue ?? ""
        guard let algorithm = JWSAlgorithm(rawValue: declared), algorithm.isAsymmetric else {
            throw JOSEError.algorithmNotAllowed(declared)
        }
        guard allowedAlgorithms.contains(algorithm) else { throw JOSEError.algorithmNotAllowed(algorithm.rawValue) }
        guard let jwkValue = jws.header["jwk"] else { throw JOSEError.malformedJWS("no jwk header") }
        let jwk = try JWK(json: jwkValue)
        guard !jwk.hasPrivateMembers else { throw JOSEError.malformedJWS("the jwk header contains a private key") }
        let verifier = try jwk.verifier(algorithm: algorithm)
        guard verifier.algorithm == algorithm, verifier.isValidSignature(jws.signature, for: jws.signingInput) else {
            throw JOSEError.invalidSignature
        }
        let claims = try jws.payloadObject()
        for name in ["jti", "htm", "htu"] where claims[name]?.stringValue == nil {
            throw JOSEError.malformedJWS("missing claim \"\(name)\"")
        }
        guard claims["iat"]?.numberValue?.intValue != nil else { throw JOSEError.malformedJWS("missing claim \"iat\"") }
        self.jws = jws
        self.jwk = jwk
        self.claims = claims
        thumbprint = jwk.thumbprint()
    }

    /// The proof's unique id.
    public var jti: String { claims["jti"]?.stringValue ?? "" }
    /// The HTTP method the proof is for.
    public var htm: String { claims["htm"]?.stringValue ?? "" }
    /// The URL the proof is for.
    public var htu: String { claims["htu"]?.stringValue ?? "" }
    /// When the proof was made, in seconds since 1970.
    public var iat: Int { claims["iat"]?.numberValue?.intValue ?? 0 }
    /// The server nonce the proof carries, when it carries one.
    public var nonce: String? { claims["nonce"]?.stringValue }
    /// The hash of the access token the proof goes with, when it goes with one.
    public var ath: String? { claims["ath"]?.stringValue }
}
