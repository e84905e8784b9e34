import Foundation
@_spi(Tooling) import HaapiModel

extension WebAuthnError: SentenceError {
    public static var failureContext: String { "The passkey operation failed" }
}

extension CBORDecodingError: SentenceError {
    public static var failureContext: String { "Passkey data could not be read" }
}
