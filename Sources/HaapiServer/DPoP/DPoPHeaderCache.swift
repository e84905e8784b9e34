import HaapiDriver
import HaapiModel

/// What the server derives from a DPoP proof's protected header (the header, its algorithm, the parsed
/// key, a signature verifier, the RFC 7638 thumbprint), kept per header: a client sends the same header,
/// with the same key, on every request, and decoding and checking it cost about 20,000 instructions a
/// proof (base64url, JSON, the key), a fifth of the token endpoint's own work.
///
/// Keyed by the header segment's exact text, so an entry is only ever reused for the same input
/// (`DPoPProof.resolveHeader` is a function of the segment and the allowed algorithms; a hit is checked
/// against the caller's algorithms again). The signature and the claims are still checked on every proof.
/// Failures are not remembered. Bounded: segments longer than ``maxCachedBytes`` (padding, extra members)
/// are resolved every time and never kept, and at `capacity` entries it starts over, so a flood of fresh
/// or padded headers costs a fixed amount of memory (a few MiB at most).
final class DPoPHeaderCache: Sendable {
    private let entries = LockedValue([String: DPoPProof.ResolvedHeader]())
    let capacity: Int
    /// Room for a header carrying an RSA-4096 key (about 1,100 characters of base64url).
    static let maxCachedBytes = 1536

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 1)
    }

    /// The checked header, from the cache or resolved (and remembered) now.
    func resolve(_ segment: Substring, allowedAlgorithms: Set<JWSAlgorithm>) throws -> DPoPProof.ResolvedHeader {
        guard segment.utf8.count <= Self.maxCachedBytes else {
            return try DPoPProof.resolveHeader(segment, allowedAlgorithms: allowedAlgorithms)
        }
        let text = String(segment)
        if let known = entries.withLock({ $0[text] }), allowedAlgorithms.contains(known.algorithm) { return known }
        let resolved = try DPoPProof.resolveHeader(segment, allowedAlgorithms: allowedAlgorithms)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[text] = resolved
        }
        return resolved
    }

    var count: Int { entries.withLock { $0.count } }
}
