import Foundation
import HaapiModel

extension HaapiUIError: CustomNSError {
    public static var errorDomain: String { "HaapiUI.HaapiUIError" }
    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make("Signing in stopped", description)]
    }
}
