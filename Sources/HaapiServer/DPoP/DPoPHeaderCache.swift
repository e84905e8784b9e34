import Foundation
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
    private struct State {
        var entries: [String: DPoPProof.ResolvedHeader] = [:]
        /// The header resolved last, compared byte for byte before the table is looked at: most requests
        /// come from the client that sent the one before, and the look-up costs a copy of the segment and a
        /// hash of its 200-odd bytes (about 2,000 instructions), the comparison a `memcmp`.
        var last: (text: String, header: DPoPProof.ResolvedHeader)?
    }

    private let state = LockedValue(State())
    /// ES256 keys' signature tables, shared by every header that carries the same key.
    let tables = P256TableCache()
    let capacity: Int
    /// Room for a header carrying an RSA-4096 key (about 1,100 characters of base64url).
    static let maxCachedBytes = 1536

    init(capacity: Int = 1024) {
        self.capacity = max(capacity, 1)
    }

    /// The checked header, from the cache or resolved (and remembered) now.
    func resolve(_ segment: Substring, allowedAlgorithms: Set<JWSAlgorithm>) throws -> DPoPProof.ResolvedHeader {
        guard segment.utf8.count <= Self.maxCachedBytes else {
            return try DPoPProof.resolveHeader(
                segment, allowedAlgorithms: allowedAlgorithms, resolveKey: tables.resolveKey)
        }
        var bytes = segment
        let recent = bytes.withUTF8 { received in
            state.withLock { state -> DPoPProof.ResolvedHeader? in
                guard var last = state.last else { return nil }
                return last.text.withUTF8 { Self.same($0, received) } ? last.header : nil
            }
        }
        if let recent, allowedAlgorithms.contains(recent.algorithm) { return recent }
        let text = String(segment)
        let known = state.withLock { state -> DPoPProof.ResolvedHeader? in
            guard let known = state.entries[text] else { return nil }
            state.last = (text, known)
            return known
        }
        if let known, allowedAlgorithms.contains(known.algorithm) { return known }
        let resolved = try DPoPProof.resolveHeader(
            segment, allowedAlgorithms: allowedAlgorithms, resolveKey: tables.resolveKey)
        state.withLock { state in
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[text] = resolved
            state.last = (text, resolved)
        }
        return resolved
    }

    private static func same(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Bool {
        guard first.count == second.count else { return false }
        guard let a = first.baseAddress, let b = second.baseAddress else { return true }
        return memcmp(a, b, first.count) == 0
    }

    var count: Int { state.withLock { $0.entries.count } }
}
