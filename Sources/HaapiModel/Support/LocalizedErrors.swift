import Foundation

// `localizedDescription` for the wire model's errors (see `ErrorSentence`).

extension HaapiDecodingError: CustomNSError {
    public static var errorDomain: String { "HaapiModel.HaapiDecodingError" }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make("The server's response could not be read", description)]
    }
}

extension HaapiRequestBuildingError: CustomNSError {
    public static var errorDomain: String { "HaapiModel.HaapiRequestBuildingError" }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make("The form could not be submitted", description)]
    }
}
