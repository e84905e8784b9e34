/// Random bytes from the system CSPRNG (`getrandom`/`arc4random` via `SystemRandomNumberGenerator`).
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// A URL-safe random token carrying `byteCount` bytes of entropy.
    public static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
