import Foundation
import HaapiModel

extension WebAuthnError: CustomNSError {
    public static var errorDomain: String { "Passkeys.WebAuthnError" }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make("The passkey operation failed", description)]
    }
}

extension CBORDecodingError: CustomNSError {
    public static var errorDomain: String { "Passkeys.CBORDecodingError" }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make("Passkey data could not be read", description)]
    }
}
