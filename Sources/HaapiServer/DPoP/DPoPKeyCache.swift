import HaapiDriver
import HaapiModel

/// What the server derives from a DPoP proof's `jwk` header (the parsed key, a signature verifier, the
/// RFC 7638 thumbprint), kept per key: a client signs every request with the same key, and deriving these
/// costs as much as a fifth of a token request.
///
/// Keyed by the header's exact JSON value and the algorithm, so an entry is only ever reused for the same
/// input (`DPoPProof.resolveKey` is a pure function of both). Bounded: only keys whose header is small
/// (`maxCachedBytes`, room for an RSA-4096 key) are kept, and at `capacity` entries it starts over, so a
/// flood of fresh or padded keys costs a fixed amount of memory (a few MiB at most).
final class DPoPKeyCache: Sendable {
    private struct Entry: Hashable, Sendable {
        let jwk: JSONValue
        let algorithm: JWSAlgorithm
    }

    private let entries = LockedValue([Entry: DPoPProof.ResolvedKey]())
    let capacity: Int
    /// Headers larger than this (extra members, padding) are resolved every time, never kept.
    static let maxCachedBytes = 1024

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 1)
    }

    /// The resolved key, from the cache or derived (and remembered) now. Failures are not remembered.
    func resolve(_ jwk: JSONValue, algorithm: JWSAlgorithm) throws -> DPoPProof.ResolvedKey {
        let entry = Entry(jwk: jwk, algorithm: algorithm)
        if let known = entries.withLock({ $0[entry] }) { return known }
        let resolved = try DPoPProof.resolveKey(jwk, algorithm: algorithm)
        guard Self.size(of: jwk) <= Self.maxCachedBytes else { return resolved }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[entry] = resolved
        }
        return resolved
    }

    var count: Int { entries.withLock { $0.count } }

    /// The bytes of a key's member names and string values (a JWK is a flat object of strings).
    private static func size(of jwk: JSONValue) -> Int {
        guard case .object(let members) = jwk else { return .max }
        return members.reduce(0) { total, member in
            total + member.key.utf8.count + (member.value.stringValue?.utf8.count ?? 64)
        }
    }
}
