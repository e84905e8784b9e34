import Foundation
import HaapiModel

extension HaapiUIError: SentenceError {
    public static var failureContext: String { "Signing in stopped" }
}
