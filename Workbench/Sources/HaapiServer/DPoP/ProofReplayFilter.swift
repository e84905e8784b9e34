import Foundation  // calloc and free

/// Remembers every DPoP proof the server accepted for as long as its `iat` could still pass, so no proof is
/// accepted twice (RFC 9449 §11.1), in memory sized by the rate the server must hold rather than by how
/// long a load lasts.
///
/// A replayed proof carries the same `iat`, so it falls due at the same second as the first one did: the
/// proofs are kept in slices of ``sliceSeconds`` by that second, and a lookup reads one slice. Each slice is
/// a blocked Bloom filter (one 64-byte block a proof, seven bits set in it) of ``bitsPerProof`` bits for
/// each of the `proofsPerSecond × sliceSeconds` proofs it takes; a slice is freed as a whole once every
/// proof in it has expired, so nothing is swept proof by proof.
///
/// What a filter answers: a proof it holds is always "present" (a replay is never accepted); a fresh proof
/// may look present with a small probability (measured in `ProofReplayFilterTests`: under 0.3 % with its
/// slice full, far less on average), and is then refused like a replay, so the client sends a new proof.
/// A slice that has taken its proofs refuses more (`.full`) until the clock moves to the next one: the
/// refusal says when (`Retry-After`).
///
/// Memory (its budget, ``memoryBudget``): at most `(2 × window + 2) / sliceSeconds + 2` slices of
/// `proofsPerSecond × sliceSeconds × bitsPerProof / 8` bytes. With the defaults (a 60 s window, 32,000 proofs
/// a second, 4 s slices) a slice is 250 KiB and clients whose clocks agree with the server's fill about 16
/// of them: 3.9 MiB (7.8 MiB with every slice in use). Slices are `calloc`ed, so a page is resident once a
/// proof has landed on it.
/// The filter keeps its own clock: the latest second any request has brought (a high-water mark). Slices are
/// dropped by that second only, and a proof whose expiry is not after it is refused, since its slice may be
/// gone already. So a request that reaches the filter late (its `now` read before the signature check and
/// the wait to enter the actor), or a system clock stepping back, can never find a replay's slice dropped.
///
/// Proofs are identified by a SipHash (the standard library's `Hasher`) of the key thumbprint and the
/// `jti` under random keys of this filter's, so no client can aim its proofs at another's bits.
actor ProofReplayFilter {
    enum Outcome: Equatable {
        case accepted, replayed
        /// The slice this proof falls in has taken all it can; a proof made `retryAfter` seconds from now
        /// falls in the next one.
        case full(retryAfter: Int)
        /// The proof expires at or before the latest second the filter has seen: too old to be told from a
        /// replay, so refused (the client makes a new proof).
        case expired
    }

    static let sliceSeconds: UInt32 = 4
    static let bitsPerProof = 16
    static let defaultProofsPerSecond = 32_000
    static let maxIDLength = 256

    /// Proofs one slice takes.
    nonisolated let proofsPerSlice: Int
    /// 64-byte blocks in one slice.
    private nonisolated let blocksPerSlice: Int
    /// Expiries further ahead than this (seconds) cannot be an accepted proof's; they are refused as full.
    private nonisolated let horizon: UInt32
    private var slices: [UInt32: Slice] = [:]
    private var sweptAt: UInt32 = 0
    /// The latest second any request has brought: the filter's clock, which never goes back.
    private var latestSecond: UInt32 = 0
    private let blockHash = KeyedPairHash()
    private let bitsHash = KeyedPairHash()

    /// - Parameters:
    ///   - window: the `iat` window in seconds; a proof is kept until `iat + window + 1`.
    ///   - proofsPerSecond: the accepted-proof rate the filter must hold without refusing (the budget).
    init(window: Int, proofsPerSecond: Int = defaultProofsPerSecond) {
        proofsPerSlice = max(proofsPerSecond, 1) * Int(Self.sliceSeconds)
        blocksPerSlice = max((proofsPerSlice * Self.bitsPerProof + 511) / 512, 1)
        horizon = UInt32(clamping: 2 * max(window, 1) + 2)
    }

    /// Bytes of one slice.
    nonisolated var sliceBytes: Int { blocksPerSlice * 64 }

    /// The most memory the slices can take (every slice of the horizon in use).
    nonisolated var memoryBudget: Int { (Int(horizon) / Int(Self.sliceSeconds) + 2) * sliceBytes }

    /// Slices in memory now.
    var sliceCount: Int { slices.count }

    /// Records the proof `jti` of key `jkt`, which must be remembered until `expiry`.
    func record(jti: String, jkt: String, until expiry: Date, now: Date) -> Outcome {
        guard jti.utf8.count <= Self.maxIDLength, jkt.utf8.count <= Self.maxIDLength else { return .replayed }
        latestSecond = max(latestSecond, Self.second(now))
        let second = latestSecond
        sweep(now: second)
        let due = Self.second(expiry)
        // Its slice may have been dropped already: the filter could not tell a replay from a first use.
        guard due > second else { return .expired }
        guard due - second <= horizon else { return .full(retryAfter: Int(Self.sliceSeconds)) }
        let index = due / Self.sliceSeconds
        let slice: Slice
        if let existing = slices[index] {
            slice = existing
        } else {
            slice = Slice(blocks: blocksPerSlice)
            slices[index] = slice
        }
        let block = Self.reduce(blockHash(jkt, jti), to: blocksPerSlice)
        let bits = bitsHash(jkt, jti)
        if slice.contains(block: block, bits: bits) { return .replayed }
        guard slice.count < proofsPerSlice else {
            // Proofs made now fall due a window from now; those made this much later fall in the next slice.
            return .full(retryAfter: Int(Self.sliceSeconds - second % Self.sliceSeconds))
        }
        slice.insert(block: block, bits: bits)
        return .accepted
    }

    /// Drops the slices whose every proof has expired, at most once a second.
    private func sweep(now: UInt32) {
        guard now != sweptAt else { return }
        sweptAt = now
        slices = slices.filter { index, _ in (index + 1) * Self.sliceSeconds >= now }
    }

    /// `value` mapped onto `0..<count` without a division (Lemire's multiply-shift).
    private static func reduce(_ value: UInt64, to count: Int) -> Int {
        Int(value.multipliedFullWidth(by: UInt64(count)).high)
    }

    /// Whole seconds since 1970, rounded up and clamped, so no date (however far off) can trap.
    private static func second(_ date: Date) -> UInt32 {
        let seconds = date.timeIntervalSince1970.rounded(.up)
        guard seconds.isFinite else { return seconds > 0 ? .max : 0 }
        // Three days short of the end, so a due second and its slice's end stay representable.
        return UInt32(min(max(seconds, 0), Double(UInt32.max - 3 * 86_400)))
    }

    /// One slice: `blocks` blocks of eight words; a proof sets seven bits of one block, each picked by nine
    /// bits of its second hash.
    final class Slice {
        private let words: UnsafeMutablePointer<UInt64>
        private let fromCalloc: Bool
        private(set) var count = 0

        init(blocks: Int) {
            let wordCount = blocks * 8
            // calloc: the kernel provides zeroed pages as they are first written.
            if let zeroed = calloc(wordCount, MemoryLayout<UInt64>.stride) {
                words = zeroed.bindMemory(to: UInt64.self, capacity: wordCount)
                fromCalloc = true
            } else {
                words = .allocate(capacity: wordCount)
                words.initialize(repeating: 0, count: wordCount)
                fromCalloc = false
            }
        }

        deinit {
            if fromCalloc { free(words) } else { words.deallocate() }
        }

        func contains(block: Int, bits: UInt64) -> Bool {
            let base = block * 8
            var hashBits = bits
            for _ in 0..<7 {
                let bit = Int(hashBits & 511)
                hashBits >>= 9
                guard words[base + bit >> 6] & (1 << UInt64(bit & 63)) != 0 else { return false }
            }
            return true
        }

        func insert(block: Int, bits: UInt64) {
            let base = block * 8
            var hashBits = bits
            for _ in 0..<7 {
                let bit = Int(hashBits & 511)
                hashBits >>= 9
                words[base + bit >> 6] |= 1 << UInt64(bit & 63)
            }
            count += 1
        }
    }
}
