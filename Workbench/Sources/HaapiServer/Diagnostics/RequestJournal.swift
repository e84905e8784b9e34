import Foundation
@_spi(Tooling) import HaapiDriver

/// The last ``capacity`` requests the server answered, in memory only, for the inspector; and the flows
/// they form. A flow is the requests made with one DPoP key from an attestation or authorize request
/// on: the app's attestation, HAAPI token, authorize request, each step, and the code's redemption. The
/// attestation challenge, fetched before the app has shown its key, joins the flow of the request that
/// answers it.
///
/// Memory: at most ``capacity`` × ``RecordedExchange/maxEntryBytes`` (two bodies of 8 KiB, two messages'
/// headers of 3 KiB, path, query and detail of 1 KiB each: 25.5 KiB), 500 × 25.5 KiB ≈ 12.5 MiB whatever the
/// requests carry (64 KiB of headers each included); the dev server's own requests are 2–5 KiB in all, so
/// about 2 MiB in use.
final class RequestJournal: Sendable {
    static let capacity = 500

    private struct State: Sendable {
        var entries: [RecordedExchange] = []
        /// Where the next entry goes once the ring is full.
        var next = 0
        var sequence = 0
        var flowCount = 0
        /// The open flow of each DPoP key, and whether it has reached an authorize request.
        var openFlows: [String: (flow: Int, authorized: Bool)] = [:]
    }

    private let state = LockedValue(State())

    var nextSequence: Int {
        state.withLock {
            $0.sequence += 1
            return $0.sequence
        }
    }

    func append(_ exchange: RecordedExchange) {
        state.withLock { state in
            var exchange = exchange
            if let key = exchange.proofKey {
                let startsFlow =
                    exchange.path.hasSuffix(Paths.cat) && exchange.method == "POST"
                    || exchange.path.hasSuffix(Paths.authorize) && state.openFlows[key]?.authorized == true
                if startsFlow || state.openFlows[key] == nil {
                    state.flowCount += 1
                    state.openFlows[key] = (state.flowCount, false)
                }
                if exchange.path.hasSuffix(Paths.authorize) { state.openFlows[key]?.authorized = true }
                exchange.flow = state.openFlows[key]?.flow
                if let link = exchange.consumedLink, let flow = exchange.flow {
                    for index in state.entries.indices where state.entries[index].issuedLink == link {
                        state.entries[index].flow = flow
                    }
                }
            }
            // The open-flow table is bounded by the ring: keys none of whose requests remain are forgotten.
            if state.openFlows.count > Self.capacity {
                let live = Set(state.entries.compactMap(\.proofKey))
                state.openFlows = state.openFlows.filter { live.contains($0.key) }
            }
            if state.entries.count < Self.capacity {
                state.entries.append(exchange)
            } else {
                state.entries[state.next] = exchange
                state.next = (state.next + 1) % Self.capacity
            }
        }
    }

    /// The kept requests, oldest first.
    var exchanges: [RecordedExchange] {
        state.withLock { state in
            Array(state.entries[state.next...] + state.entries[..<state.next])
        }
    }

    /// The bytes the kept requests hold in bodies, header fields and the strings recorded with them: what the
    /// budget above bounds.
    var retainedBytes: Int {
        state.withLock { state in
            state.entries.reduce(0) { total, exchange in
                let headers = (exchange.requestHeaders + exchange.responseHeaders).reduce(0) {
                    $0 + $1.name.utf8.count + $1.value.utf8.count
                }
                let strings = [
                    exchange.method, exchange.path, exchange.query ?? "", exchange.clientID ?? "",
                    exchange.refusal?.detail ?? "", exchange.proofKey ?? "", exchange.issuedLink ?? "",
                    exchange.consumedLink ?? "", exchange.responseContentType ?? "",
                ].reduce(0) { $0 + $1.utf8.count }
                return total + headers + strings + (exchange.requestBody?.capacity ?? 0)
                    + (exchange.responseBody?.capacity ?? 0)
            }
        }
    }

    func exchanges(inFlow flow: Int) -> [RecordedExchange] {
        exchanges.filter { $0.flow == flow }
    }
}
