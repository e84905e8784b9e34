import Foundation

/// The sentence an error's `localizedDescription` shows: what failed, then the error's own detail.
///
/// Every SDK error type conforms to `CustomNSError` and puts this sentence under
/// `NSLocalizedDescriptionKey`, so apps that show `error.localizedDescription` get a specific sentence
/// instead of Foundation's generic "The operation couldn't be completed", on Apple platforms and Linux.
@_spi(Tooling) public enum ErrorSentence {
    /// `"<Context>: <detail>."`, with the detail's own final punctuation kept.
    @_spi(Tooling) public static func make(_ context: String, _ detail: String) -> String {
        let trimmed = detail.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return context + "." }
        let ending = trimmed.last.map { ".!?".contains($0) } == true ? "" : "."
        return context + ": " + trimmed + ending
    }
}

/// An SDK error whose `localizedDescription` is `"<failureContext>: <description>."`, bridged through
/// `CustomNSError` (the domain is the type's full name). One conformance line per error type.
public protocol SentenceError: CustomNSError, CustomStringConvertible {
    /// What failed, as the start of the sentence ("The server could not be reached").
    static var failureContext: String { get }
}

extension SentenceError {
    public static var errorDomain: String { String(reflecting: Self.self) }

    public var errorUserInfo: [String: Any] {
        [NSLocalizedDescriptionKey: ErrorSentence.make(Self.failureContext, description)]
    }
}
