/// HTML that escapes what it is given unless told the text is markup: every page of the server (the sign-in
/// page, the passkey app, the inspector and its diagrams) is built from these, so text from a request (a user
/// name, a redirect URI, a header) cannot become markup by a forgotten escape.
///
/// ```swift
/// let heading: HTML = "<h1>Sign in to \(clientName)</h1>"   // clientName is escaped
/// let page: HTML = "<main>\(heading)\(rows)</main>"        // HTML and [HTML] go in as they are
/// ```
struct HTML: ExpressibleByStringInterpolation, Sendable, Equatable {
    /// The markup.
    private(set) var markup: String

    /// Markup written in the source (a literal), taken as it is.
    init(stringLiteral literal: String) {
        markup = literal
    }

    init(stringInterpolation: Interpolation) {
        markup = stringInterpolation.markup
    }

    /// Text shown as text: escaped for an element or a quoted attribute.
    init(text: String) {
        markup = Self.escape(text)
    }

    /// The parts one after another.
    init(joining parts: [HTML], separator: HTML = "") {
        markup = parts.map(\.markup).joined(separator: separator.markup)
    }

    static let empty: HTML = ""

    static func + (left: HTML, right: HTML) -> HTML { HTML(joining: [left, right]) }

    static func += (left: inout HTML, right: HTML) { left = left + right }

    struct Interpolation: StringInterpolationProtocol {
        fileprivate var markup = ""

        init(literalCapacity: Int, interpolationCount: Int) {
            markup.reserveCapacity(literalCapacity * 2)
        }

        /// The template's own markup.
        mutating func appendLiteral(_ literal: String) { markup += literal }

        /// Text: escaped.
        mutating func appendInterpolation(_ text: String) { markup += HTML.escape(text) }

        /// A number: its digits.
        mutating func appendInterpolation(_ number: Int) { markup += String(number) }

        /// Markup built the same way: as it is.
        mutating func appendInterpolation(_ html: HTML) { markup += html.markup }

        /// Markup, one part after another.
        mutating func appendInterpolation(_ parts: [HTML]) { markup += parts.map(\.markup).joined(separator: "\n") }
    }

    /// `text` safe inside an element or a quoted attribute.
    private static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
