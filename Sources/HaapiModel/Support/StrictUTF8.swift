extension String {
    /// The string of `bytes` when they are well-formed UTF-8, else nil: one definition for every parser of
    /// outside bytes (forms, Basic credentials, CBOR text).
    ///
    /// Decoding replaces anything malformed with U+FFFD, which changes the bytes, so comparing them back
    /// finds it. ASCII, the usual case, always decodes to itself, so it is only checked byte by byte, which
    /// is cheaper than comparing through the string's UTF-8 view (docs/BENCHMARKS.md). Inlinable, so callers
    /// on the request path get it specialised for their bytes.
    @inlinable
    @_spi(Tooling) public init?<Bytes: Collection<UInt8>>(strictUTF8 bytes: Bytes) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard bytes.allSatisfy({ $0 < 0x80 }) || text.utf8.elementsEqual(bytes) else { return nil }
        self = text
    }
}
