import Crypto
import Foundation

/// Proof Key for Code Exchange (RFC 7636) with the S256 method.
public struct PKCE: Sendable, Hashable {
    /// The challenge method: SHA-256 (RFC 7636 §4.2); `plain` is never used.
    public static let method = "S256"

    /// The secret the token request sends.
    public let codeVerifier: String
    /// Its SHA-256, base64url, which the authorization request sends.
    public let codeChallenge: String

    /// A fresh verifier of 32 random bytes (43 characters, the RFC's recommendation).
    public init() {
        self.init(verifier: SecureRandom.token(byteCount: 32))
    }

    /// The pair for a verifier the app already has.
    public init(verifier: String) {
        codeVerifier = verifier
        codeChallenge = PKCE.challenge(for: verifier)
    }

    /// BASE64URL(SHA256(ASCII(verifier))).
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
    }

    /// Whether a verifier has the form RFC 7636 §4.1 requires: 43–128 unreserved characters.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._~".unicodeScalars.contains($0))
            }
    }
}
