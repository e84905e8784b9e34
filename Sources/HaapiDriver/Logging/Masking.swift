import Foundation

/// A value that is a secret wherever it is logged. Interpolated into a `HaapiLogger` message it counts as
/// sensitive, like `\(sensitive: …)`: the log shows `*****` while `HaapiLogger.isSensitiveValueMasked` is true
/// (the default) and `unmaskedDescription` only when it is turned off. Its `description` masks too, so a value
/// printed any other way does not leak either.
public protocol Masking: CustomStringConvertible {
    /// The value's text, written only where masking is turned off.
    var unmaskedDescription: String { get }
}

extension Masking {
    /// What a log shows now: `*****`, or the value when masking is off.
    public var maskedDescription: String {
        HaapiLogger.isSensitiveValueMasked ? HaapiLogger.mask : unmaskedDescription
    }
}

extension AccessToken: Masking {
    /// The token itself.
    public var unmaskedDescription: String { value }
}
