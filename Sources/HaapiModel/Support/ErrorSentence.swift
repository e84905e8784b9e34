import Foundation

/// The sentence an error's `localizedDescription` shows: what failed, then the error's own detail.
///
/// Every SDK error type conforms to `CustomNSError` and puts this sentence under
/// `NSLocalizedDescriptionKey`, so apps that show `error.localizedDescription` get a specific sentence
/// instead of Foundation's generic "The operation couldn't be completed", on Apple platforms and Linux.
package enum ErrorSentence {
    /// `"<Context>: <detail>."`, with the detail's own final punctuation kept.
    package static func make(_ context: String, _ detail: String) -> String {
        let trimmed = detail.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return context + "." }
        let ending = trimmed.last.map { ".!?".contains($0) } == true ? "" : "."
        return context + ": " + trimmed + ending
    }
}
