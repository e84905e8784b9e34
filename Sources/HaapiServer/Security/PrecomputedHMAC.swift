import Crypto
import HaapiDriver

/// HMAC-SHA-256 (RFC 2104) under one key, with the key's inner and outer blocks hashed once, when it is made.
///
/// Crypto's `HMAC` hashes the outer block again in every `finalize()` and reaches the hash through the generic
/// `DataProtocol` path, and every token request seals an access token with one MAC. This is a use of
/// swift-crypto's SHA-256, not a primitive of our own, and the same MAC byte for byte: the tests compare it with `HMAC<SHA256>` for keys shorter
/// and longer than a block and with RFC 4231's vectors.
struct PrecomputedHMAC: Sendable {
    /// SHA-256 after `key ⊕ ipad`, and after `key ⊕ opad`; each code continues copies of them.
    /// Boxed: Xcode 16.0–16.2's CryptoKit does not declare its hash functions Sendable (`CryptoKeyBox`).
    private let inner: CryptoKeyBox<SHA256>
    private let outer: CryptoKeyBox<SHA256>

    init(key: SymmetricKey) {
        // A key longer than a block is replaced by its hash; either is then padded with zeros to a block.
        var block = [UInt8](repeating: 0, count: SHA256.blockByteCount)
        key.withUnsafeBytes { bytes in
            if bytes.count > block.count {
                var hash = SHA256()
                hash.update(bufferPointer: bytes)
                hash.finalize().withUnsafeBytes { block.replaceSubrange(0..<$0.count, with: $0) }
            } else {
                block.replaceSubrange(0..<bytes.count, with: bytes)
            }
        }
        var inner = SHA256()
        inner.update(data: block.map { $0 ^ 0x36 })
        var outer = SHA256()
        outer.update(data: block.map { $0 ^ 0x5C })
        for position in block.indices { block[position] = 0 }
        self.inner = CryptoKeyBox(inner)
        self.outer = CryptoKeyBox(outer)
    }

    /// HMAC-SHA-256 of `message`.
    func code(for message: UnsafeRawBufferPointer) -> SHA256.Digest {
        var inner = inner.value
        inner.update(bufferPointer: message)
        var outer = outer.value
        inner.finalize().withUnsafeBytes { outer.update(bufferPointer: $0) }
        return outer.finalize()
    }
}
