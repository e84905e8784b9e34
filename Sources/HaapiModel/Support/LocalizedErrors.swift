import Foundation

// `localizedDescription` for the wire model's errors (see `ErrorSentence`).

extension HaapiDecodingError: SentenceError {
    public static var failureContext: String { "The server's response could not be read" }
}

extension HaapiRequestBuildingError: SentenceError {
    public static var failureContext: String { "The form could not be submitted" }
}
