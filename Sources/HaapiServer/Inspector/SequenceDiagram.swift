/// A flow drawn as a sequence diagram in SVG: the app's lane on the left, the server's on the right, one
/// arrow for each request and one back for its answer, a refusal's answer in red. Every arrow links to the
/// exchange's details on the same page (`#r<sequence>`). Only presentation attributes, no `style`, so the
/// pages' `style-src 'self'` policy holds; every text escaped.
enum SequenceDiagram {
    static let width = 760
    static let rowHeight = 56
    static let appLane = 90
    static let serverLane = 670

    static func svg(_ exchanges: [RecordedExchange]) -> String {
        let height = 60 + exchanges.count * rowHeight + 20
        var parts = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sequence\" role=\"img\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" font-family=\"system-ui, sans-serif\" font-size=\"13\">",
            "<title>Sequence of \(exchanges.count) requests</title>",
            "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"context-stroke\"/></marker></defs>",
            lane(x: appLane, label: "app", height: height),
            lane(x: serverLane, label: "server", height: height),
        ]
        for (row, exchange) in exchanges.enumerated() {
            let view = ExchangeView(exchange: exchange)
            let y = 60 + row * rowHeight
            let refused = exchange.isRefused
            let colour = refused ? "#c62828" : "#2e7d32"
            parts.append("<a href=\"#r\(exchange.sequence)\" class=\"arrow\(refused ? " refused" : "")\">")
            // An invisible band over both arrows and their labels, so the whole row is what a click selects.
            parts.append(
                "<rect x=\"\(appLane)\" y=\"\(y - 20)\" width=\"\(serverLane - appLane)\" height=\"\(rowHeight - 8)\" fill=\"#fff\" fill-opacity=\"0\"/>"
            )
            parts.append(
                arrow(from: appLane, to: serverLane, y: y, colour: "#1f3b73", label: view.requestLabel, dashed: false))
            parts.append(
                arrow(from: serverLane, to: appLane, y: y + 24, colour: colour, label: view.responseLabel, dashed: true)
            )
            parts.append("</a>")
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private static func lane(x: Int, label: String, height: Int) -> String {
        "<text x=\"\(x)\" y=\"24\" text-anchor=\"middle\" font-weight=\"bold\">\(HTMLPage.escape(label))</text>"
            + "<line x1=\"\(x)\" y1=\"34\" x2=\"\(x)\" y2=\"\(height - 10)\" stroke=\"#888\" stroke-dasharray=\"4 4\"/>"
    }

    private static func arrow(from: Int, to: Int, y: Int, colour: String, label: String, dashed: Bool) -> String {
        let shown = label.count > 80 ? String(label.prefix(79)) + "…" : label
        return "<line x1=\"\(from)\" y1=\"\(y)\" x2=\"\(to)\" y2=\"\(y)\" stroke=\"\(colour)\" stroke-width=\"2\""
            + (dashed ? " stroke-dasharray=\"6 3\"" : "") + " marker-end=\"url(#head)\"/>"
            + "<text x=\"\((from + to) / 2)\" y=\"\(y - 5)\" text-anchor=\"middle\" fill=\"\(colour)\">\(HTMLPage.escape(shown))</text>"
    }
}
