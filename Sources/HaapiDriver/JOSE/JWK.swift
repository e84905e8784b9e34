import Crypto
import Foundation

/// A JSON Web Key (RFC 7517): EC (P-256/384/521), RSA, or oct.
///
/// The members are kept as given, so `kid`, `use`, `alg` and unknown members survive a round trip.
/// Construction validates what signing and verification rely on: required members, base64url
/// encodings and, for EC keys, coordinates of exactly the curve's length.
public struct JWK: Sendable, Hashable, CustomStringConvertible {
    /// The key's members as received or made.
    public let members: JSONObject

    /// The members RFC 7638 hashes for each key type, in the order the thumbprint uses.
    public static let requiredMembers: [String: [String]] = [
        "EC": ["crv", "kty", "x", "y"],
        "RSA": ["e", "kty", "n"],
        "oct": ["k", "kty"],
        "OKP": ["crv", "kty", "x"],
    ]

    private static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// Reads a JWK; throws `JOSEError.malformedJWK` when a required member is missing or malformed.
    public init(json: JSONValue) throws {
        guard case .object(let object) = json else { throw JOSEError.malformedJWK("not a JSON object") }
        guard case .string(let keyType)? = object["kty"] else { throw JOSEError.malformedJWK("missing \"kty\"") }
        guard let required = Self.requiredMembers[keyType] else { throw JOSEError.unsupportedKeyType(keyType) }
        for name in required {
            guard case .string(let value)? = object[name], !value.isEmpty else {
                throw JOSEError.malformedJWK("missing or non-string \"\(name)\"")
            }
            if name != "kty" && name != "crv" && Base64URL.decode(value) == nil {
                throw JOSEError.malformedJWK("\"\(name)\" is not base64url")
            }
        }
        for name in Self.privateMembers where object[name] != nil {
            guard case .string(let value)? = object[name], Base64URL.decode(value) != nil else {
                throw JOSEError.malformedJWK("\"\(name)\" is not base64url")
            }
        }
        if keyType == "EC" {
            guard case .string(let curve)? = object["crv"], let length = Self.coordinateLength(curve) else {
                throw JOSEError.unsupportedCurve(object["crv"]?.stringValue ?? "")
            }
            for name in ["x", "y"] where Self.bytes(object[name])?.count != length {
                throw JOSEError.malformedJWK("\"\(name)\" must be \(length) bytes for \(curve)")
            }
            if object["d"] != nil, Self.bytes(object["d"])?.count != length {
                throw JOSEError.malformedJWK("\"d\" must be \(length) bytes for \(curve)")
            }
        }
        members = object
    }

    /// Parses a JWK from JSON text (e.g. a key file).
    public init(jsonString: String) throws {
        let value: JSONValue
        do {
            value = try JSONParser(limits: .init(maxBytes: 64 * 1024, maxDepth: 8)).parse(jsonString)
        } catch {
            throw JOSEError.malformedJWK("not JSON (\(error))")
        }
        try self.init(json: value)
    }

    /// `kty`: `EC`, `RSA`, `OKP` or `oct`.
    public var keyType: String { members["kty"]?.stringValue ?? "" }
    /// `crv` of an elliptic-curve key.
    public var curve: String? { members["crv"]?.stringValue }
    /// `kid`, when the key has one.
    public var keyID: String? { members["kid"]?.stringValue }

    /// The key as JSON.
    public var json: JSONValue { .object(members) }
    /// The key as compact JSON text.
    public var jsonString: String { json.serialized() }

    /// Whether the JWK carries private material (`d` for EC and RSA; `k` for symmetric keys).
    public var hasPrivateMembers: Bool { Self.privateMembers.contains { members[$0] != nil } }

    /// The public half: the required public members plus `kid`, `use`, `alg` and `key_ops`.
    public func publicKey() throws -> JWK {
        guard keyType != "oct" else { throw JOSEError.unsupportedKeyType("oct has no public half") }
        let kept = Set((Self.requiredMembers[keyType] ?? []) + ["kid", "use", "alg", "key_ops"])
        return try JWK(
            json: .object(JSONObject(members.members.filter { kept.contains($0.key) }.map { ($0.key, $0.value) })))
    }

    /// The RFC 7638 thumbprint: SHA-256 over the required members, sorted, without whitespace, base64url.
    public func thumbprint() -> String {
        Base64URL.encode(SHA256.hash(data: Data(thumbprintInput().utf8)))
    }

    /// The exact text RFC 7638 hashes, e.g. `{"crv":"P-256","kty":"EC","x":"…","y":"…"}`.
    public func thumbprintInput() -> String {
        var canonical = JSONObject()
        for name in (Self.requiredMembers[keyType] ?? []).sorted() {
            if let value = members[name] { canonical[name] = value }
        }
        return JSONValue.object(canonical).serialized(sortedKeys: true)
    }

    /// The bytes of a base64url member, or `nil` when it is absent.
    public func bytes(_ name: String) -> [UInt8]? { Self.bytes(members[name]) }

    /// Never prints private members: a JWK in a log line shows only its public half.
    public var description: String {
        let shown = (try? publicKey().jsonString) ?? "{\"kty\":\"\(keyType)\"}"
        return hasPrivateMembers ? "JWK(\(shown), private members redacted)" : "JWK(\(shown))"
    }

    /// Two JWKs are equal when they have the same members with the same values, in any order.
    public static func == (lhs: JWK, rhs: JWK) -> Bool {
        lhs.members.count == rhs.members.count && lhs.members.allSatisfy { rhs.members[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        for member in members.members.sorted(by: { $0.key < $1.key }) {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }

    static func coordinateLength(_ curve: String) -> Int? {
        switch curve {
        case "P-256": 32
        case "P-384": 48
        case "P-521": 66
        default: nil
        }
    }

    private static func bytes(_ value: JSONValue?) -> [UInt8]? {
        guard case .string(let text)? = value else { return nil }
        return Base64URL.decode(text)
    }
}

extension JWK {
    /// The public JWK of a P-256 key.
    public init(p256PublicKey key: P256.Signing.PublicKey) {
        // rawRepresentation is always x || y, 32 bytes each.
        let raw = Array(key.rawRepresentation)
        self.init(unchecked: [
            "kty": "EC",
            "crv": "P-256",
            "x": .string(Base64URL.encode(raw.prefix(32))),
            "y": .string(Base64URL.encode(raw.dropFirst(32))),
        ])
    }

    /// A private P-256 JWK (`d` included), e.g. for a key file.
    public init(p256PrivateKey key: P256.Signing.PrivateKey) {
        var members = JWK(p256PublicKey: key.publicKey).members
        members["d"] = .string(Base64URL.encode(key.rawRepresentation))
        self.init(unchecked: members)
    }

    /// For members built here from well-formed keys; skips validation.
    init(unchecked members: JSONObject) {
        self.members = members
    }

    /// `04 || x || y` for EC keys.
    func x963Representation() throws -> Data {
        guard keyType == "EC", let x = bytes("x"), let y = bytes("y") else {
            throw JOSEError.malformedJWK("not an EC key")
        }
        return Data([0x04] + x + y)
    }
}
