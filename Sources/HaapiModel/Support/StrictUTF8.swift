extension String {
    /// The string of `bytes` when they are well-formed UTF-8, else nil. Decoding replaces anything malformed
    /// with U+FFFD, which changes the bytes, so comparing them back finds it. One definition for every parser
    /// of request bytes (forms, Basic credentials).
    /// Inlinable: callers on the request path (a form, Basic credentials) get it specialised for their bytes.
    /// ASCII, the usual case, is checked byte by byte instead: it always decodes to itself, and the
    /// comparison through the string's UTF-8 view cost about 20 instructions a byte.
    @inlinable
    package init?<Bytes: Collection<UInt8>>(strictUTF8 bytes: Bytes) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard bytes.allSatisfy({ $0 < 0x80 }) || text.utf8.elementsEqual(bytes) else { return nil }
        self = text
    }
}
