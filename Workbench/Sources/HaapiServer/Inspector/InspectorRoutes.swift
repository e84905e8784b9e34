import Foundation
import HTTPTypes
import Hummingbird

/// `/inspector`: the recent flows and requests, for the developer at this machine (``LocalOnly``: loopback,
/// this server's `Host`, no foreign `Origin`). Pages work without JavaScript; a small script of the
/// server's own reloads the page's content while a flow runs.
struct InspectorRoutes: ServerService, LocalOnly {
    static let path = "/inspector"
    static let flowsPath = "/inspector/flows"
    static let requestsPath = "/inspector/requests"
    static let scriptPath = "/inspector/live.js"

    let address: ServerAddress
    let journal: RequestJournal

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(stringLiteral: Self.path)) { request, context in
            self.localRefusal(request, context) ?? self.page(InspectorPages.overview(self.journal.exchanges))
        }
        router.get(RouterPath(stringLiteral: Self.flowsPath + "/:flow")) { request, context in
            if let refusal = self.localRefusal(request, context) { return refusal }
            guard let flow = context.parameters.get("flow", as: Int.self) else { return self.missing("flow") }
            let exchanges = self.journal.exchanges(inFlow: flow)
            guard !exchanges.isEmpty else { return self.missing("flow") }
            return self.page(InspectorPages.flow(flow, exchanges, version: self.journal.exchanges.last?.sequence ?? 0))
        }
        router.get(RouterPath(stringLiteral: Self.requestsPath + "/:sequence")) { request, context in
            if let refusal = self.localRefusal(request, context) { return refusal }
            guard let sequence = context.parameters.get("sequence", as: Int.self),
                let exchange = self.journal.exchanges.first(where: { $0.sequence == sequence })
            else { return self.missing("request") }
            return self.page(InspectorPages.request(exchange))
        }
        router.get(RouterPath(stringLiteral: Self.scriptPath)) { request, context in
            self.localRefusal(request, context)
                ?? SiteAssets.response(InspectorPages.liveScript, contentType: "text/javascript; charset=utf-8")
        }
    }

    private func page(_ page: HTMLPage) -> Response {
        var page = page
        page.basePath = issuerPath
        return page.response()
    }

    private func missing(_ what: String) -> Response {
        page(
            .message(
                title: "Inspector", heading: "No such \(what)",
                text: "It is not among the last \(RequestJournal.capacity) requests the inspector keeps.",
                next: ("All flows", issuerPath + Self.path), status: .notFound, basePath: issuerPath))
    }
}
