import Foundation
import HaapiRules

/// The inspector's pages, built as `HTML`: everything shown comes from requests and is escaped as it goes in;
/// links are built from numbers only.
enum InspectorPages {
    private static func time(_ date: Date) -> String {
        String(RequestLogLine.timestamp(date).dropFirst(11).prefix(12))
    }

    private static func requestLink(_ exchange: RecordedExchange, _ label: String) -> HTML {
        "<a href=\"\(InspectorRoutes.requestsPath)/\(exchange.sequence)\">\(label)</a>"
    }

    private static func flowLink(_ flow: Int?) -> HTML {
        flow.map { "<a href=\"\(InspectorRoutes.flowsPath)/\($0)\">\($0)</a>" } ?? "–"
    }

    /// The flows, the refused requests and the latest requests.
    static func overview(_ exchanges: [RecordedExchange]) -> HTMLPage {
        var html: [HTML] = [
            "<h1>Inspector</h1>",
            "<p>The last \(exchanges.count) requests this server answered (it keeps \(RequestJournal.capacity), in memory only). Secrets are masked.</p>",
        ]
        let flows = Dictionary(grouping: exchanges.filter { $0.flow != nil }, by: { $0.flow ?? 0 })
        html.append("<h2>Flows</h2>")
        if flows.isEmpty {
            html.append(
                "<p class=\"empty\">No flow yet: sign in with an app, <code>haapi login</code> or <code>haapi demo</code>.</p>"
            )
        } else {
            let rows = flows.sorted(by: { $0.key > $1.key }).map { flow, members -> HTML in
                let views = members.map(ExchangeView.init)
                let refused = members.filter(\.isRefused).count
                let authenticator = views.compactMap(\.authenticator).first ?? "–"
                let client = members.compactMap(\.clientID).first ?? "–"
                let marked: HTML = refused > 0 ? " class=\"refused\"" : ""
                return
                    "<tr\(marked)><td><a href=\"\(InspectorRoutes.flowsPath)/\(flow)\">flow \(flow)</a></td><td>\(time(members[0].time))</td><td>\(client)</td><td>\(authenticator)</td><td>\(members.count)</td><td>\(refused)</td><td>\(views.last?.responseLabel ?? "")</td></tr>"
            }
            html.append(
                "<table class=\"inspector\"><thead><tr><th>flow</th><th>started</th><th>client</th><th>authenticator</th><th>requests</th><th>refused</th><th>last answer</th></tr></thead><tbody>\(rows)</tbody></table>"
            )
        }
        let refused = exchanges.filter(\.isRefused).suffix(50).reversed()
        html.append("<h2>Refused requests</h2>")
        if refused.isEmpty {
            html.append("<p class=\"empty\">None.</p>")
        } else {
            // A table to scan: when, what, the answer, the rule (its title on hover), the client; the request's
            // page has what was expected, what came and the fix.
            let rows = refused.map { exchange -> HTML in
                let view = ExchangeView(exchange: exchange)
                let rule = exchange.rule
                return
                    "<tr><td>\(time(exchange.time))</td><td>\(requestLink(exchange, view.requestLabel))</td><td>\(exchange.status)</td><td><code title=\"\(rule?.entry.title ?? "")\">\(rule?.id ?? "–")</code></td><td>\(exchange.clientID ?? "–")</td></tr>"
            }
            html.append(
                "<table class=\"inspector refusals\"><thead><tr><th>time</th><th>request</th><th>status</th><th>rule</th><th>client</th></tr></thead><tbody>\(rows)</tbody></table>"
            )
        }
        html.append("<h2>Latest requests</h2>")
        let latest = exchanges.suffix(100).reversed().map { exchange -> HTML in
            let view = ExchangeView(exchange: exchange)
            let marked: HTML = exchange.isRefused ? " class=\"refused\"" : ""
            return
                "<tr\(marked)><td>\(time(exchange.time))</td><td>\(requestLink(exchange, view.requestLabel))</td><td>\(view.responseLabel)</td><td>\(exchange.clientID ?? "–")</td><td>\(flowLink(exchange.flow))</td></tr>"
        }
        html.append(
            "<table class=\"inspector\"><thead><tr><th>time</th><th>request</th><th>answer</th><th>client</th><th>flow</th></tr></thead><tbody>\(latest)</tbody></table>"
        )
        return HTMLPage(
            title: "Inspector", content: HTML(joining: html, separator: "\n"), script: InspectorRoutes.scriptPath,
            mainAttributes: " data-version=\"\(exchanges.last?.sequence ?? 0)\"")
    }

    /// One flow: its first refusal, its sequence diagram and every exchange in it.
    static func flow(_ flow: Int, _ exchanges: [RecordedExchange], version: Int) -> HTMLPage {
        let client = exchanges.compactMap(\.clientID).first ?? "unknown client"
        var html: [HTML] = [
            "<p><a href=\"\(InspectorRoutes.path)\">All flows</a></p>",
            "<h1>Flow \(flow): \(client)</h1>",
            "<p>\(exchanges.count) requests from \(time(exchanges[0].time)); \(exchanges.filter(\.isRefused).count) refused. Select an arrow for its request and answer.</p>",
        ]
        if let first = exchanges.first(where: \.isRefused) {
            let view = ExchangeView(exchange: first)
            html.append(
                "<p class=\"refusal\" role=\"alert\">First refusal: <a href=\"#r\(first.sequence)\">\(view.requestLabel) → \(view.responseLabel)</a></p>"
            )
        }
        html.append(SequenceDiagram.svg(exchanges))
        html += exchanges.map(section)
        return HTMLPage(
            title: "Inspector: flow \(flow)", content: HTML(joining: html, separator: "\n"),
            script: InspectorRoutes.scriptPath, mainAttributes: " data-version=\"\(version)\"")
    }

    /// One request, on its own page.
    static func request(_ exchange: RecordedExchange) -> HTMLPage {
        var html: [HTML] = ["<p><a href=\"\(InspectorRoutes.path)\">All flows</a></p>"]
        if let flow = exchange.flow {
            html.append("<p>Part of <a href=\"\(InspectorRoutes.flowsPath)/\(flow)\">flow \(flow)</a>.</p>")
        }
        html.append(section(exchange))
        return HTMLPage(
            title: "Inspector: request \(exchange.sequence)", content: HTML(joining: html, separator: "\n"))
    }

    /// An exchange decoded: the refusal's line and fix, then request and answer.
    static func section(_ exchange: RecordedExchange) -> HTML {
        let view = ExchangeView(exchange: exchange)
        let marked: HTML = exchange.isRefused ? " refused" : ""
        var html: [HTML] = [
            "<section class=\"exchange\(marked)\" id=\"r\(exchange.sequence)\">",
            "<h2>\(view.requestLabel) → \(view.responseLabel)</h2>",
            "<p class=\"meta\">\(RequestLogLine.timestamp(exchange.time)), \(RequestLogLine.milliseconds(exchange.duration)) ms, client \(exchange.clientID ?? "–")</p>",
        ]
        if let rule = exchange.rule {
            let entry = rule.entry
            html.append(
                """
                <div class="refusal" role="alert">
                <p><strong>\(rule.id)</strong>: \(entry.title) (\(entry.reference))</p>
                <p>\(exchange.refusal?.detail ?? entry.title)</p>
                <p>Fix: \(entry.fix)</p>
                <pre class="line">\(RequestLogLine.line(exchange, format: .text))</pre>
                </div>
                """)
        }
        html.append("<h3>Request</h3>")
        html.append(headers(view.requestHeaders))
        if let proof = view.proof {
            html.append("<h4>DPoP proof (signature not shown)</h4>")
            html.append("<pre>\(proof.header)</pre><pre>\(proof.claims)</pre>")
        }
        if let body = view.requestBody { html.append("<pre>\(body)</pre>") }
        html.append("<h3>Answer: \(exchange.status)</h3>")
        html.append(headers(view.responseHeaders))
        if let body = view.responseBody { html.append("<pre>\(body)</pre>") }
        for line in view.tokens { html.append("<pre>\(line)</pre>") }
        html.append("</section>")
        return HTML(joining: html, separator: "\n")
    }

    private static func headers(_ fields: [(String, String)]) -> HTML {
        guard !fields.isEmpty else { return .empty }
        let rows = fields.map { name, value -> HTML in "<tr><th>\(name)</th><td>\(value)</td></tr>" }
        return "<table class=\"headers\">\(HTML(joining: rows))</table>"
    }

    /// Reloads the page's content every two seconds while the journal grows (the page's `data-version`
    /// is the newest request it shows); keeps the reader's place. On a flow's page, brings its first refused
    /// arrow into view once, so a long flow does not hide where it went wrong.
    static let liveScript = #"""
        "use strict";
        (function () {
          const main = document.querySelector("main[data-version]");
          if (!main) { return; }
          const firstRefusal = document.querySelector("svg.sequence a.refused");
          if (firstRefusal && !location.hash) {
            const box = firstRefusal.getBoundingClientRect();
            if (box.top < 0 || box.bottom > window.innerHeight) { firstRefusal.scrollIntoView({ block: "center" }); }
          }
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
