import Foundation

/// The inspector's pages. Everything shown comes from requests, so all of it goes through
/// `HTMLPage.escape`; links are built from numbers only.
enum InspectorPages {
    private static func escape(_ text: String) -> String { HTMLPage.escape(text) }

    private static func time(_ date: Date) -> String {
        String(RequestLogLine.timestamp(date).dropFirst(11).prefix(12))
    }

    /// The flows, the refused requests and the latest requests.
    static func overview(_ exchanges: [RecordedExchange]) -> HTMLPage {
        var html = ["<h1>Inspector</h1>"]
        html.append(
            "<p>The last \(exchanges.count) requests this server answered (it keeps \(RequestJournal.capacity), in memory only). Secrets are masked.</p>"
        )
        let flows = Dictionary(grouping: exchanges.filter { $0.flow != nil }, by: { $0.flow ?? 0 })
        html.append("<h2>Flows</h2>")
        if flows.isEmpty {
            html.append(
                "<p class=\"empty\">No flow yet: sign in with an app, <code>haapi login</code> or <code>haapi demo</code>.</p>"
            )
        } else {
            html.append(
                "<table class=\"inspector\"><thead><tr><th>flow</th><th>started</th><th>client</th><th>authenticator</th><th>requests</th><th>refused</th><th>last answer</th></tr></thead><tbody>"
            )
            for (flow, members) in flows.sorted(by: { $0.key > $1.key }) {
                let views = members.map(ExchangeView.init)
                let refused = members.filter(\.isRefused).count
                let authenticator = views.compactMap(\.authenticator).first ?? "–"
                let client = members.compactMap(\.clientID).first ?? "–"
                html.append(
                    "<tr\(refused > 0 ? " class=\"refused\"" : "")><td><a href=\"\(InspectorRoutes.flowsPath)/\(flow)\">flow \(flow)</a></td><td>\(time(members[0].time))</td><td>\(escape(client))</td><td>\(escape(authenticator))</td><td>\(members.count)</td><td>\(refused)</td><td>\(escape(views.last?.responseLabel ?? ""))</td></tr>"
                )
            }
            html.append("</tbody></table>")
        }
        let refused = exchanges.filter(\.isRefused).suffix(50).reversed()
        html.append("<h2>Refused requests</h2>")
        if refused.isEmpty {
            html.append("<p class=\"empty\">None.</p>")
        } else {
            html.append("<ul class=\"refusals\">")
            for exchange in refused {
                html.append(
                    "<li><a href=\"\(InspectorRoutes.requestsPath)/\(exchange.sequence)\">\(escape(RequestLogLine.line(exchange, format: .text)))</a></li>"
                )
            }
            html.append("</ul>")
        }
        html.append("<h2>Latest requests</h2>")
        html.append(
            "<table class=\"inspector\"><thead><tr><th>time</th><th>request</th><th>answer</th><th>client</th><th>flow</th></tr></thead><tbody>"
        )
        for exchange in exchanges.suffix(100).reversed() {
            let view = ExchangeView(exchange: exchange)
            html.append(
                "<tr\(exchange.isRefused ? " class=\"refused\"" : "")><td>\(time(exchange.time))</td><td><a href=\"\(InspectorRoutes.requestsPath)/\(exchange.sequence)\">\(escape(view.requestLabel))</a></td><td>\(escape(view.responseLabel))</td><td>\(escape(exchange.clientID ?? "–"))</td><td>\(exchange.flow.map { "<a href=\"\(InspectorRoutes.flowsPath)/\($0)\">\($0)</a>" } ?? "–")</td></tr>"
            )
        }
        html.append("</tbody></table>")
        return HTMLPage(
            title: "Inspector", content: html.joined(separator: "\n"), script: InspectorRoutes.scriptPath,
            mainAttributes: " data-version=\"\(exchanges.last?.sequence ?? 0)\"")
    }

    /// One flow: its sequence diagram and every exchange in it.
    static func flow(_ flow: Int, _ exchanges: [RecordedExchange], version: Int) -> HTMLPage {
        let client = exchanges.compactMap(\.clientID).first ?? "unknown client"
        var html = [
            "<p><a href=\"\(InspectorRoutes.path)\">All flows</a></p>",
            "<h1>Flow \(flow): \(escape(client))</h1>",
            "<p>\(exchanges.count) requests from \(time(exchanges[0].time)); \(exchanges.filter(\.isRefused).count) refused. Select an arrow for its request and answer.</p>",
            SequenceDiagram.svg(exchanges),
        ]
        html += exchanges.map(section)
        return HTMLPage(
            title: "Inspector: flow \(flow)", content: html.joined(separator: "\n"), script: InspectorRoutes.scriptPath,
            mainAttributes: " data-version=\"\(version)\"")
    }

    /// One request, on its own page.
    static func request(_ exchange: RecordedExchange) -> HTMLPage {
        var html = ["<p><a href=\"\(InspectorRoutes.path)\">All flows</a></p>"]
        if let flow = exchange.flow {
            html.append("<p>Part of <a href=\"\(InspectorRoutes.flowsPath)/\(flow)\">flow \(flow)</a>.</p>")
        }
        html.append(section(exchange))
        return HTMLPage(title: "Inspector: request \(exchange.sequence)", content: html.joined(separator: "\n"))
    }

    /// An exchange decoded: the refusal's line and fix, then request and answer.
    static func section(_ exchange: RecordedExchange) -> String {
        let view = ExchangeView(exchange: exchange)
        var html = [
            "<section class=\"exchange\(exchange.isRefused ? " refused" : "")\" id=\"r\(exchange.sequence)\">",
            "<h2>\(escape(view.requestLabel)) → \(escape(view.responseLabel))</h2>",
            "<p class=\"meta\">\(escape(RequestLogLine.timestamp(exchange.time))), \(RequestLogLine.milliseconds(exchange.duration)) ms, client \(escape(exchange.clientID ?? "–"))</p>",
        ]
        if let rule = exchange.rule {
            let entry = rule.entry
            html.append("<div class=\"refusal\" role=\"alert\">")
            html.append(
                "<p><strong>\(escape(rule.id))</strong>: \(escape(entry.title)) (\(escape(entry.reference)))</p>")
            html.append("<p>\(escape(exchange.refusal?.detail ?? entry.title))</p>")
            html.append("<p>Fix: \(escape(entry.fix))</p>")
            html.append("<pre class=\"line\">\(escape(RequestLogLine.line(exchange, format: .text)))</pre>")
            html.append("</div>")
        }
        html.append("<h3>Request</h3>")
        html.append(headers(view.requestHeaders))
        if let proof = view.proof {
            html.append("<h4>DPoP proof (signature not shown)</h4>")
            html.append("<pre>\(escape(proof.header))</pre><pre>\(escape(proof.claims))</pre>")
        }
        if let body = view.requestBody { html.append("<pre>\(escape(body))</pre>") }
        html.append("<h3>Answer: \(exchange.status)</h3>")
        html.append(headers(view.responseHeaders))
        if let body = view.responseBody { html.append("<pre>\(escape(body))</pre>") }
        for line in view.tokens { html.append("<pre>\(escape(line))</pre>") }
        html.append("</section>")
        return html.joined(separator: "\n")
    }

    private static func headers(_ fields: [(String, String)]) -> String {
        guard !fields.isEmpty else { return "" }
        let rows = fields.map { "<tr><th>\(escape($0.0))</th><td>\(escape($0.1))</td></tr>" }
        return "<table class=\"headers\">" + rows.joined() + "</table>"
    }

    /// Reloads the page's content every two seconds while the journal grows (the page's `data-version`
    /// is the newest request it shows); keeps the reader's place.
    static let liveScript = #"""
        "use strict";
        (function () {
          const main = document.querySelector("main[data-version]");
          if (!main) { return; }
          async function refresh() {
            try {
              const answer = await fetch(location.pathname, { headers: { Accept: "text/html" }, cache: "no-store" });
              if (!answer.ok) { return; }
              const page = new DOMParser().parseFromString(await answer.text(), "text/html");
              const fresh = page.querySelector("main[data-version]");
              if (fresh && fresh.dataset.version !== main.dataset.version) {
                main.replaceChildren(...Array.from(fresh.childNodes).map((node) => document.importNode(node, true)));
                main.dataset.version = fresh.dataset.version;
              }
            } catch (error) {
              // The server stopped: keep what is shown.
            }
          }
          setInterval(refresh, 2000);
        })();
        """#
}
