@_spi(Tooling) import HaapiDriver
import Testing

@Suite("base64url")
struct Base64URLTests {
    @Test("RFC 4648 test strings in the URL-safe alphabet without padding")
    func knownValues() {
        let cases = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in cases {
            #expect(Base64URL.encode(plain) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
    }

    @Test(
        "decoding rejects padding, the standard alphabet, whitespace, impossible lengths and stray bits",
        arguments: ["Zg==", "a+b/", "Zm 9v", "Z", "Zh", "Zm9=", "Zm9vYmF"])
    func strict(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }

    @Test("random bytes round-trip")
    func roundTrip() {
        for length in 0..<70 {
            let bytes = SecureRandom.bytes(length)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }
}
