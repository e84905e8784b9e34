import Foundation

/// A JWS in compact serialisation (RFC 7515 §7.1): `header.payload.signature`.
public struct CompactJWS: Sendable, Hashable {
    /// The protected header.
    public let header: JSONObject
    /// The payload bytes.
    public let payload: Data
    /// The signature bytes.
    public let signature: Data
    /// `BASE64URL(header) . BASE64URL(payload)` exactly as received: what the signature covers.
    public let signingInput: Data
    /// The JWS in compact serialization, as received.
    public let compact: String

    /// Header parameters this implementation understands when they are listed in `crit`.
    static let understoodCriticalHeaders: Set<String> = []

    /// Parses a compact JWS without checking its signature.
    public init(parsing compact: String) throws {
        let segments = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw JOSEError.malformedJWS("expected 3 segments, found \(segments.count)")
        }
        guard let payload = Base64URL.decode(segments[1]) else {
            throw JOSEError.malformedJWS("payload is not base64url")
        }
        guard let signature = Base64URL.decode(segments[2]) else {
            throw JOSEError.malformedJWS("signature is not base64url")
        }
        header = try Self.parseHeader(segments[0])
        self.payload = Data(payload)
        self.signature = Data(signature)
        signingInput = Data(compact.utf8[..<segments[1].endIndex])
        self.compact = compact
    }

    /// What ``init(parsing:)`` makes of a protected header's segment: it must be base64url of a JSON object
    /// that names an `alg` and lists in `crit` only parameters this implementation understands.
    static func parseHeader(_ segment: Substring) throws -> JSONObject {
        var segment = segment
        let headerValue = try segment.withUTF8 { utf8 throws -> JSONValue in
            guard let bytes = Base64URL.decode(utf8: utf8) else {
                throw JOSEError.malformedJWS("header is not base64url")
            }
            do {
                return try bytes.withUnsafeBufferPointer {
                    try JSONParser(limits: .init(maxBytes: 16 * 1024, maxDepth: 8)).parse($0)
                }
            } catch {
                throw JOSEError.malformedJWS("header is not JSON: \(error)")
            }
        }
        guard case .object(let header) = headerValue else {
            throw JOSEError.malformedJWS("header is not a JSON object")
        }
        guard case .string? = header["alg"] else { throw JOSEError.malformedJWS("header has no \"alg\"") }
        if let critical = header["crit"] {
            guard case .array(let names) = critical, !names.isEmpty else {
                throw JOSEError.malformedJWS("\"crit\" must be a non-empty array")
            }
            let unknown = names.map { $0.stringValue ?? "?" }.filter { !Self.understoodCriticalHeaders.contains($0) }
            if !unknown.isEmpty { throw JOSEError.unsupportedCriticalHeader(unknown) }
        }
        return header
    }

    /// The `alg` header; `nil` when it names no algorithm this implementation supports (including `none`).
    public var algorithm: JWSAlgorithm? { header["alg"]?.stringValue.flatMap(JWSAlgorithm.init(rawValue:)) }

    /// The payload parsed as a JSON object (the claims of a JWT).
    public func payloadObject() throws -> JSONObject {
        let value: JSONValue
        do {
            value = try JSONParser(limits: .init(maxBytes: 256 * 1024, maxDepth: 32)).parse(payload)
        } catch {
            throw JOSEError.malformedJWS("payload is not JSON: \(error)")
        }
        guard case .object(let object) = value else { throw JOSEError.malformedJWS("payload is not a JSON object") }
        return object
    }

    /// Checks the signature with `key`. The header's `alg` must be in `allowedAlgorithms` and fit the key;
    /// never trust a token to choose its own algorithm.
    public func verify(with key: JWK, allowedAlgorithms: Set<JWSAlgorithm>) throws {
        let declared = header["alg"]?.stringValue ?? ""
        guard let algorithm, allowedAlgorithms.contains(algorithm) else {
            throw JOSEError.algorithmNotAllowed(declared)
        }
        let verifier = try key.verifier(algorithm: algorithm)
        guard verifier.isValidSignature(signature, for: signingInput) else { throw JOSEError.invalidSignature }
    }
}

/// Produces compact JWS.
public enum JWS {
    /// Signs `payload` with `signer`. `alg` is set from the signer; the other header members are kept in order.
    public static func sign(payload: Data, header: JSONObject = [:], signer: any JWSSigner) throws -> String {
        var fullHeader: JSONObject = ["alg": .string(signer.algorithm.rawValue)]
        for (name, value) in header where name != "alg" { fullHeader[name] = value }
        return try sign(
            encodedHeader: Base64URL.encode(Data(JSONValue.object(fullHeader).serialized().utf8)), payload: payload,
            signer: signer)
    }

    /// Signs with a header that is already encoded, for callers that must control its exact bytes.
    public static func sign(encodedHeader: String, payload: Data, signer: any JWSSigner) throws -> String {
        let signingInput = encodedHeader + "." + Base64URL.encode(payload)
        let signature = try signer.signature(for: Data(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Signs a JSON object as the payload (a JWT's claims).
    public static func sign(claims: JSONObject, header: JSONObject = [:], signer: any JWSSigner) throws -> String {
        try sign(payload: Data(JSONValue.object(claims).serialized().utf8), header: header, signer: signer)
    }
}
