/// A 64-bit SipHash (the standard library's `Hasher`) of a pair of strings under a random key of its own,
/// mixed in ahead of the pair, so the bits stay private to this process even where `Hasher`'s seed is fixed
/// (`SWIFT_DETERMINISTIC_HASHING`): nobody can choose strings that collide with another's on purpose. A string's
/// hash ends with a terminator byte, so no two pairs run together.
struct KeyedPairHash: Sendable {
    private let key = (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max))

    func callAsFunction(_ first: String, _ second: String) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(key.0)
        hasher.combine(key.1)
        hasher.combine(first)
        hasher.combine(second)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}
