import Foundation
import HTTPTypes
import Hummingbird

/// The middleware in front of every route: it gives the request a ``RequestTrace`` while it runs, then
/// writes its log line and keeps it in the journal for the inspector. A refusal thrown as ``Rejection``
/// is answered here with its response, as the router would.
struct RequestRecorder: RouterMiddleware {
    typealias Context = ServerRequestContext

    let journal: RequestJournal
    let log: RequestLogOptions
    let clock: @Sendable () -> Date

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        // Not kept: health checks (load balancers and benchmarks poll them) and static assets; the
        // inspector's own pages only when refused (a page that polls would push the flows out of the ring).
        if path == Paths.health || path.hasPrefix("/assets/") { return try await next(request, context) }
        let onlyRefusals = path.hasPrefix(InspectorRoutes.path)
        let trace = RequestTrace()
        let started = clock()
        let response: Response
        do {
            response = try await RequestTrace.$current.withValue(trace) { try await next(request, context) }
        } catch let rejection as Rejection {
            response = rejection.response
        } catch let error as HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            record(request, status: 500, response: nil, trace: trace, started: started)
            throw error
        }
        if !onlyRefusals || response.status.code >= 400 {
            record(request, status: Int(response.status.code), response: response, trace: trace, started: started)
        }
        return response
    }

    private func record(_ request: Request, status: Int, response: Response?, trace: RequestTrace, started: Date) {
        let found = trace.snapshot
        let exchange = RecordedExchange(
            sequence: journal.nextSequence, time: started, duration: clock().timeIntervalSince(started),
            method: request.method.rawValue, path: RecordedExchange.cut(request.uri.path) ?? "",
            query: RecordedExchange.cut(request.uri.query),
            requestHeaders: RecordedExchange.fields(request.headers),
            requestBody: RecordedExchange.cut(found.requestBody), status: status,
            responseHeaders: response.map { RecordedExchange.fields($0.headers) } ?? [],
            responseBody: RecordedExchange.cut(found.responseBody), responseContentType: found.responseContentType,
            clientID: found.clientID.map { String($0.prefix(256)) },
            refusal: found.refusal.map { Refusal(rule: $0.rule, detail: RecordedExchange.cut($0.detail)) },
            proofKey: found.proofKey, issuedLink: found.issuedLink,
            consumedLink: found.consumedLink, secretFields: found.secretFields)
        journal.append(exchange)
        // A first proof's nonce challenge is how DPoP nonces work, not a client's mistake: a line only when
        // every request gets one.
        let isNonceChallenge = exchange.rule == .dpopNonceMissing
        guard let write = log.write, (exchange.isRefused && !isNonceChallenge) || log.verbose else { return }
        write(RequestLogLine.line(exchange, format: log.format))
    }
}
