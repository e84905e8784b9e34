/// What the dev server writes about the requests it answers: one line for every refused request (the
/// rule, what was expected and what came, and the fix), and with `verbose` one short line for every
/// accepted one. No line holds a token, code, password, client secret, proof signature or cookie.
public struct RequestLogOptions: Sendable {
    /// `text` for people, `json` (one object a line, the same members) for tools.
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var format: Format
    public var verbose: Bool
    /// Where each line goes (without its newline); nil writes nothing.
    public var write: (@Sendable (String) -> Void)?

    public init(format: Format = .text, verbose: Bool = false, write: (@Sendable (String) -> Void)?) {
        self.format = format
        self.verbose = verbose
        self.write = write
    }

    /// No lines (the demo, which shares its terminal, and tests that do not read them).
    public static let off = RequestLogOptions(write: nil)
}
