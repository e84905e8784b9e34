import Foundation
@_spi(Tooling) import HaapiUI
import NetworkFaults
import Testing

/// Polling on a phone's network (issue 52 item 3): a poll that fails in a way that passes (a 503 with
/// `Retry-After`, a poll with no answer in time) keeps the step waiting and shows `reconnecting`; lost answers
/// are asked again below it; the flow goes on to tokens once the network is back, and cancel still ends it at
/// once.
@Suite("Polling through a bad network", .timeLimit(.minutes(2)))
@MainActor
struct PollingNetworkTests {
    nonisolated static func isPoll(_ request: NetworkFaultProxy.Request) -> Bool {
        request.target.hasPrefix("/authn/authenticate/approve/poll")
    }

    @Test("a 503 with Retry-After, two lost answers in a row and a stalled poll: reconnecting, then signed in")
    func pollsThroughFaults() async throws {
        let polls = FaultCounter()
        let proxy = try NetworkFaultProxy { request in
            guard Self.isPoll(request) else { return .pass }
            switch polls.next() {
            case 1: return .unavailable(status: 503, retryAfter: "1")
            case 2, 3: return .resetAfterForwarding  // the SDK's own second GET is lost too
            case 4: return .stall
            default: return .pass
            }
        }
        defer { proxy.stop() }
        let server = try await UITestServer(behind: proxy)
        defer { Task { await server.running.stop() } }
        let viewModel = HaapiFlowViewModel(
            haapiUIKitApplication: try server.application(polling: 0.2, requestTimeout: 5))
        await viewModel.start()
        try await viewModel.selectAuthenticator("approve")
        await viewModel.submit(try #require(viewModel.forms.first), values: ["userName": "approver"])
        var reasons: [String] = []
        try await viewModel.wait(seconds: 30) {
            if let reconnecting = viewModel.reconnecting, reasons.last != reconnecting.reason {
                reasons.append(reconnecting.reason)
            }
            return polls.count() >= 5 || viewModel.error != nil
        }
        #expect(viewModel.error == nil, "\(String(describing: viewModel.error))")
        #expect(reasons.contains { $0.contains("503") }, "\(reasons)")
        #expect(reasons.contains { $0.contains("no answer within 5 s") }, "\(reasons)")
        // The lost answers were absorbed below the view model: the transport's or the SDK's second GET.
        #expect(proxy.log.filter { $0.fault == .resetAfterForwarding }.count == 2)
        guard case .polling? = viewModel.uiModel?.content else {
            Issue.record("the polling step was left: \(String(describing: viewModel.uiModel?.step.type))")
            return
        }
        #expect(try await server.approve("approver") == 200)
        try await viewModel.wait { viewModel.oAuthModel != nil || viewModel.error != nil }
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        #expect(viewModel.reconnecting == nil)
        await viewModel.close()
    }

    @Test("cancel while reconnecting ends the flow at once, though the server keeps answering 503")
    func cancelWhileReconnecting() async throws {
        let proxy = try NetworkFaultProxy { Self.isPoll($0) ? .unavailable(status: 503, retryAfter: "3600") : .pass }
        defer { proxy.stop() }
        let server = try await UITestServer(behind: proxy)
        defer { Task { await server.running.stop() } }
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(polling: 0.2))
        await viewModel.start()
        try await viewModel.selectAuthenticator("approve")
        await viewModel.submit(try #require(viewModel.forms.first), values: ["userName": "approver"])
        try await viewModel.wait { viewModel.reconnecting != nil || viewModel.error != nil }
        let reconnecting = try #require(viewModel.reconnecting)
        // An hour's Retry-After is held to the longest wait.
        #expect(reconnecting.nextPoll.timeIntervalSinceNow <= PollingReconnection.longestWait + 1)
        let started = Date()
        await viewModel.cancelPolling()
        #expect(Date().timeIntervalSince(started) < 2, "cancel took \(Date().timeIntervalSince(started)) s")
        guard case .flowCancelled? = viewModel.error as? HaapiUIError else {
            Issue.record("expected flowCancelled, got \(String(describing: viewModel.error))")
            return
        }
        #expect(viewModel.reconnecting == nil && !viewModel.isPolling)
        await viewModel.close()
    }

    @Test("the wait between polls: the server's Retry-After within bounds, else a doubling back-off")
    func waits() {
        #expect(PollingReconnection.wait(attempt: 1, interval: 2, asked: 5) == 5)
        #expect(PollingReconnection.wait(attempt: 1, interval: 2, asked: 0) == 2)
        #expect(PollingReconnection.wait(attempt: 1, interval: 2, asked: 86_400) == PollingReconnection.longestWait)
        #expect(PollingReconnection.wait(attempt: 1, interval: 1, asked: nil) == 1)
        #expect(PollingReconnection.wait(attempt: 3, interval: 1, asked: nil) == 4)
        #expect(PollingReconnection.wait(attempt: 40, interval: 1, asked: nil) == PollingReconnection.longestBackOff)
        #expect(
            !PollingReconnection.passes(
                HaapiError.communication(message: "x", cause: TransportError.cancelled)))
        #expect(
            PollingReconnection.passes(HaapiError.communication(message: "x", cause: TransportError.answerLost("r"))))
        #expect(
            !PollingReconnection.passes(
                HaapiError.serverError(error: "invalid_grant", errorDescription: "", statusCode: 400)))
    }
}
