import Foundation
import HaapiDriver
import HaapiModel

/// What the server derives from a DPoP proof's protected header (the header, its algorithm, the parsed
/// key, a signature verifier, the RFC 7638 thumbprint), kept per header: a client sends the same header,
/// with the same key, on every request. The cost it saves is in docs/BENCHMARKS.md.
///
/// Keyed by the header segment's exact text, so an entry is only ever reused for the same bytes
/// (`DPoPProof.resolveHeader` is a function of the segment and the allowed algorithms; a hit is checked
/// against the caller's algorithms again). A header is remembered only once its proof has passed every
/// check (signature, claims, nonce, binding, replay), so a caller cannot fill the cache with headers of
/// proofs the server refused. The signature and the claims are still checked on every proof.
/// Bounded: segments longer than ``maxCachedBytes`` are never kept, and at `capacity` entries it starts
/// over (at most about 1.5 MiB of header text and keys).
final class DPoPHeaderCache: Sendable {
    private struct State {
        var entries: [String: DPoPProof.ResolvedHeader] = [:]
        /// The header seen last, compared byte for byte before the table is looked at: most requests come
        /// from the client that sent the one before.
        var last: (text: String, header: DPoPProof.ResolvedHeader)?
    }

    private let state = LockedValue(State())
    let capacity: Int
    /// Room for a header carrying an RSA-4096 key (about 1,100 characters of base64url).
    static let maxCachedBytes = 1536

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 1)
    }

    /// A header resolved for one proof: `cached` when it came from the cache.
    struct Lookup {
        let header: DPoPProof.ResolvedHeader
        let cached: Bool
    }

    /// The checked header, from the cache or resolved now (and not yet remembered: see ``remember(_:_:)``).
    func resolve(_ segment: Substring, allowedAlgorithms: Set<JWSAlgorithm>) throws -> Lookup {
        if segment.utf8.count <= Self.maxCachedBytes, let known = cached(segment),
            allowedAlgorithms.contains(known.algorithm)
        {
            return Lookup(header: known, cached: true)
        }
        return Lookup(header: try DPoPProof.resolveHeader(segment, allowedAlgorithms: allowedAlgorithms), cached: false)
    }

    /// Keeps a header whose proof passed every check.
    func remember(_ segment: Substring, _ header: DPoPProof.ResolvedHeader) {
        guard segment.utf8.count <= Self.maxCachedBytes else { return }
        let text = String(segment)
        state.withLock { state in
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[text] = header
            state.last = (text, header)
        }
    }

    private func cached(_ segment: Substring) -> DPoPProof.ResolvedHeader? {
        var bytes = segment
        let recent = bytes.withUTF8 { received in
            state.withLock { state -> DPoPProof.ResolvedHeader? in
                guard var last = state.last else { return nil }
                return last.text.withUTF8 { Self.same($0, received) } ? last.header : nil
            }
        }
        if let recent { return recent }
        let text = String(segment)
        return state.withLock { state -> DPoPProof.ResolvedHeader? in
            guard let known = state.entries[text] else { return nil }
            state.last = (text, known)
            return known
        }
    }

    /// Whether the header of `proof` (a compact JWS) is kept: for tests.
    func contains(headerOf proof: String) -> Bool {
        guard let dot = proof.firstIndex(of: ".") else { return false }
        let text = String(proof[..<dot])
        return state.withLock { $0.entries[text] != nil }
    }

    private static func same(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Bool {
        guard first.count == second.count else { return false }
        guard let a = first.baseAddress, let b = second.baseAddress else { return true }
        return memcmp(a, b, first.count) == 0
    }

    var count: Int { state.withLock { $0.entries.count } }
}
