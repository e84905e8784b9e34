/// Random bytes from the system CSPRNG (`getrandom`/`arc4random` via `SystemRandomNumberGenerator`).
public enum SecureRandom {
    /// `count` bytes from the system's cryptographically secure generator.
    public static func bytes(_ count: Int) -> [UInt8] {
        // Eight bytes per call to the generator: each call is a system call on Linux, so asking for one
        // byte at a time made a 32-byte token cost 32 of them.
        var generator = SystemRandomNumberGenerator()
        var output = [UInt8]()
        output.reserveCapacity(count + 7)
        while output.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { output.append(contentsOf: $0) }
        }
        output.removeLast(output.count - count)
        return output
    }

    /// A URL-safe random token carrying `byteCount` bytes of entropy.
    public static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
