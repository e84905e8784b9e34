import Foundation

/// Whether a URL the app was opened with is the redirect a flow waits for: it starts with the redirect URI
/// and goes on, if at all, with its query (or more of it), fragment or a path below it. `app://haapi` takes
/// `app://haapi?_resume_nonce=…` but not `app://haapievil?…`, which only shares its first characters.
enum RedirectPrefix {
    static func matches(_ url: URL, prefix: String) -> Bool {
        let text = url.absoluteString
        guard !prefix.isEmpty, text.hasPrefix(prefix) else { return false }
        guard let next = text.dropFirst(prefix.count).first else { return true }
        // A redirect URI with a query of its own goes on with `&` and the flow's parameters.
        if next == "&" { return prefix.contains("?") }
        return next == "?" || next == "#" || next == "/" || prefix.last.map { "/?#&".contains($0) } == true
    }
}
