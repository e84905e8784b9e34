import Foundation
@_spi(Tooling) import HaapiModel

extension HaapiUIError: SentenceError {
    public static var failureContext: String { "Signing in stopped" }
}
