/// A flow drawn as a sequence diagram in SVG: the app's lane on the left, the server's on the right, one
/// arrow for each request and one back for its answer, a refusal's answer in red. Every arrow links to the
/// exchange's details on the same page (`#r<sequence>`). It takes the page's width (a `viewBox`, no fixed
/// size) and only presentation attributes, no `style`, so the pages' `style-src 'self'` policy holds; every
/// text escaped (`HTML`).
enum SequenceDiagram {
    static let width = 1000
    static let rowHeight = 44
    static let appLane = 70
    static let serverLane = 930

    static func svg(_ exchanges: [RecordedExchange]) -> HTML {
        let height = 50 + exchanges.count * rowHeight + 10
        var parts: [HTML] = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sequence\" role=\"img\" viewBox=\"0 0 \(width) \(height)\" width=\"100%\" preserveAspectRatio=\"xMidYMin meet\" font-family=\"system-ui, sans-serif\" font-size=\"14\">",
            "<title>Sequence of \(exchanges.count) requests</title>",
            "<defs><marker id=\"head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0 0L10 5L0 10z\" fill=\"context-stroke\"/></marker></defs>",
            lane(x: appLane, label: "app", height: height),
            lane(x: serverLane, label: "server", height: height),
        ]
        for (row, exchange) in exchanges.enumerated() {
            let view = ExchangeView(exchange: exchange)
            let y = 50 + row * rowHeight
            let refused = exchange.isRefused
            let colour = refused ? "#c62828" : "#2e7d32"
            let marked: HTML = refused ? " refused" : ""
            parts.append("<a href=\"#r\(exchange.sequence)\" class=\"arrow\(marked)\">")
            // An invisible band over both arrows and their labels, so the whole row is what a click selects.
            parts.append(
                "<rect x=\"\(appLane)\" y=\"\(y - 18)\" width=\"\(serverLane - appLane)\" height=\"\(rowHeight - 4)\" fill=\"#fff\" fill-opacity=\"0\"/>"
            )
            parts.append(
                arrow(from: appLane, to: serverLane, y: y, colour: "#1f3b73", label: view.requestLabel, dashed: false))
            parts.append(
                arrow(from: serverLane, to: appLane, y: y + 20, colour: colour, label: view.responseLabel, dashed: true)
            )
            parts.append("</a>")
        }
        parts.append("</svg>")
        return HTML(joining: parts, separator: "\n")
    }

    private static func lane(x: Int, label: String, height: Int) -> HTML {
        "<text x=\"\(x)\" y=\"22\" text-anchor=\"middle\" font-weight=\"bold\">\(label)</text><line x1=\"\(x)\" y1=\"30\" x2=\"\(x)\" y2=\"\(height - 6)\" stroke=\"#888\" stroke-dasharray=\"4 4\"/>"
    }

    private static func arrow(from: Int, to: Int, y: Int, colour: String, label: String, dashed: Bool) -> HTML {
        let shown = label.count > 110 ? String(label.prefix(109)) + "…" : label
        let dash: HTML = dashed ? " stroke-dasharray=\"6 3\"" : ""
        return
            "<line x1=\"\(from)\" y1=\"\(y)\" x2=\"\(to)\" y2=\"\(y)\" stroke=\"\(colour)\" stroke-width=\"2\"\(dash) marker-end=\"url(#head)\"/><text x=\"\((from + to) / 2)\" y=\"\(y - 5)\" text-anchor=\"middle\" fill=\"\(colour)\">\(shown)</text>"
    }
}
