import Crypto
import Foundation
import _CryptoExtras

/// The signature algorithms `ClientAuthenticationMethodJWTAsymmetric` can sign its client assertion with.
public enum JWTAsymmetricAlgorithm: String, Sendable, CaseIterable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    case rs384 = "RS384"
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    case rs512 = "RS512"
    /// RSASSA-PSS with SHA-256.
    case ps256 = "PS256"
    /// RSASSA-PSS with SHA-384.
    case ps384 = "PS384"
    /// RSASSA-PSS with SHA-512.
    case ps512 = "PS512"
    /// ECDSA with P-256 and SHA-256.
    case es256 = "ES256"
    /// ECDSA with P-384 and SHA-384.
    case es384 = "ES384"
    /// ECDSA with P-521 and SHA-512.
    case es512 = "ES512"

    var jws: JWSAlgorithm { JWSAlgorithm(rawValue: rawValue) ?? .rs256 }
}

/// The HMAC algorithms `ClientAuthenticationMethodJWTSymmetric` can sign its client assertion with.
public enum JWTSymmetricAlgorithm: String, Sendable, CaseIterable {
    /// HMAC with SHA-256.
    case hs256 = "HS256"
    /// HMAC with SHA-384.
    case hs384 = "HS384"
    /// HMAC with SHA-512.
    case hs512 = "HS512"

    var jws: JWSAlgorithm { JWSAlgorithm(rawValue: rawValue) ?? .hs256 }
}

/// `private_key_jwt` and `client_secret_jwt` (RFC 7523 §2.2): a short-lived JWT with `iss` = `sub` = the
/// client, `aud` = the token endpoint, a fresh `jti`, `iat` and `exp` (60 s).
struct ClientAssertion {
    static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    static func add(
        to request: inout TokenEndpointRequest, clientId: String, signer: any JWSSigner, keyID: String? = nil,
        now: Date = Date()
    ) throws(HaapiError) {
        let iat = Int(now.timeIntervalSince1970)
        let claims: JSONObject = [
            "iss": .string(clientId), "sub": .string(clientId), "aud": .string(request.url.absoluteString),
            "jti": .string(SecureRandom.token(byteCount: 16)), "iat": .number(JSONNumber(iat)),
            "exp": .number(JSONNumber(iat + 60)),
        ]
        let assertion: String
        var header: JSONObject = ["typ": "JWT"]
        if let keyID { header["kid"] = .string(keyID) }
        do { assertion = try JWS.sign(claims: claims, header: header, signer: signer) } catch {
            throw .assertionFailure(cause: error)
        }
        request.form.append(("client_id", clientId))
        request.form.append(("client_assertion_type", type))
        request.form.append(("client_assertion", assertion))
    }
}

/// `private_key_jwt` with an RSA or EC private key read from PEM (PKCS#8, PKCS#1 or SEC1).
public struct ClientAuthenticationMethodJWTAsymmetric: ClientAuthenticationMethod {
    private let signer: any JWSSigner
    /// The algorithm the assertion is signed with; it must suit the key.
    public let signatureAlgorithm: JWTAsymmetricAlgorithm
    /// The `kid` of the key as the server registered it; servers that hold several keys per client need it.
    public let keyID: String?

    /// A `private_key_jwt` client from a PEM private key (RSA or EC); `keyID` goes in the assertion's `kid` when the
    /// server needs it. Throws `.invalidConfiguration` when the key does not parse or does not suit the algorithm.
    public init(pem: String, signatureAlgorithm: JWTAsymmetricAlgorithm, keyID: String? = nil) throws(HaapiError) {
        self.signatureAlgorithm = signatureAlgorithm
        self.keyID = keyID
        do {
            signer = try Self.signer(pem: pem, algorithm: signatureAlgorithm)
        } catch {
            throw .invalidConfiguration(reason: error.description)
        }
    }

    /// The signer of a PEM private key (RSA or EC) for `algorithm`.
    public static func signer(
        pem: String, algorithm signatureAlgorithm: JWTAsymmetricAlgorithm
    ) throws(CryptoImportError)
        -> any JWSSigner
    {
        guard pem.contains("-----BEGIN ") else { throw .notPEM }
        let algorithm = signatureAlgorithm.jws
        do {
            switch algorithm.family {
            case .rsaPKCS1, .rsaPSS:
                return RSASigner(algorithm: algorithm, key: try _RSA.Signing.PrivateKey(pemRepresentation: pem))
            case .ecdsa:
                let scalar: Data
                switch algorithm {
                case .es384: scalar = try P384.Signing.PrivateKey(pemRepresentation: pem).rawRepresentation
                case .es512: scalar = try P521.Signing.PrivateKey(pemRepresentation: pem).rawRepresentation
                default: scalar = try P256.Signing.PrivateKey(pemRepresentation: pem).rawRepresentation
                }
                return try ECDSASigner(algorithm: algorithm, scalar: scalar)
            case .hmac:
                throw CryptoImportError.symmetricAlgorithm(algorithm.rawValue)
            }
        } catch let error as CryptoImportError {
            throw error
        } catch {
            throw .keyDoesNotSuit(algorithm: signatureAlgorithm.rawValue, detail: "\(error)")
        }
    }

    /// The seed's form: the PEM file is read from `bundle` (or from an absolute path).
    public init(
        pemFilename: String, signatureAlgorithm: JWTAsymmetricAlgorithm, keyID: String? = nil, bundle: Bundle = .main
    ) throws(HaapiError) {
        let data = try ClientAuthenticationMethodMTLS.read(pemFilename, bundle)
        try self.init(pem: String(decoding: data, as: UTF8.self), signatureAlgorithm: signatureAlgorithm, keyID: keyID)
    }

    public func authenticate(_ request: inout TokenEndpointRequest, clientId: String) throws(HaapiError) {
        try ClientAssertion.add(to: &request, clientId: clientId, signer: signer, keyID: keyID)
    }
}

/// `client_secret_jwt`: the assertion is an HMAC over the shared secret.
public struct ClientAuthenticationMethodJWTSymmetric: ClientAuthenticationMethod, CustomStringConvertible {
    private let signer: any JWSSigner
    /// The HMAC algorithm the assertion is signed with.
    public let signatureAlgorithm: JWTSymmetricAlgorithm

    /// A `client_secret_jwt` client: assertions signed with the client secret.
    public init(signatureAlgorithm: JWTSymmetricAlgorithm, secretKey: String) {
        self.signatureAlgorithm = signatureAlgorithm
        signer = HMACSigner(algorithm: signatureAlgorithm.jws, key: SymmetricKey(data: Data(secretKey.utf8)))
    }

    public func authenticate(_ request: inout TokenEndpointRequest, clientId: String) throws(HaapiError) {
        try ClientAssertion.add(to: &request, clientId: clientId, signer: signer)
    }

    public var description: String { "ClientAuthenticationMethodJWTSymmetric(\(signatureAlgorithm.rawValue), *****)" }
}
