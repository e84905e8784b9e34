import Foundation
@_spi(Tooling) import HaapiDriver

/// A pending "approve on another device" request, as the approving side sees it.
public struct PendingApproval: Sendable, Equatable {
    /// Unguessable; approving names it, so an approval applies to this one flow.
    public let id: String
    public let username: String
    public let clientID: String
    public let deadline: Date
}

/// Live flows, in memory: a flow is short-lived and restarts cleanly if the server does. Authorize
/// requests create flows, so the store is bounded and expiring (the oldest flow goes first when full);
/// the browser-page and approval indexes point into it and are dropped with their flow.
actor FlowStore {
    private var sessions: ExpiringStore<String, FlowSession>
    private var browserPages: [String: String] = [:]
    private var approvals: [String: String] = [:]
    /// Flows that ended with their authorization response, for ``FinishedFlow/grace``: a client whose answer
    /// was lost asks again (a GET) and gets the same one. At most 1,000 (each the response's JSON, about 1 KiB,
    /// and two ids: about 2 MiB in all); when full, the oldest goes.
    private var finished: ExpiringStore<String, FinishedFlow>

    init(capacity: Int = 10_000, finishedCapacity: Int = 1_000) {
        sessions = ExpiringStore(capacity: capacity)
        finished = ExpiringStore(capacity: finishedCapacity)
    }

    /// Ends flow `id` with `answer`, which the same client and key get again if they ask within the grace.
    func finish(_ id: String, as answer: FinishedFlow, now: Date) {
        remove(id)
        finished.set(answer, for: id, expiresAt: now.addingTimeInterval(FinishedFlow.grace), now: now)
    }

    /// The answer flow `id` ended with, while its grace lasts.
    func finishedFlow(_ id: String, now: Date) -> FinishedFlow? {
        finished.value(for: id, now: now)
    }

    func insert(_ session: FlowSession, now: Date) {
        sessions.set(session, for: session.id, expiresAt: session.expiresAt, now: now)
        pruneIndexes(now: now)
    }

    func session(_ id: String, now: Date) -> FlowSession? {
        sessions.value(for: id, now: now)
    }

    /// Applies `change` to a live session, in one step of this actor, and returns what it returned; nil when
    /// there is no such flow.
    @discardableResult
    func update<T: Sendable>(_ id: String, _ change: @Sendable (inout FlowSession) -> T) -> T? {
        var result: T?
        // Like a lookup by id, an update does not care whether the flow has expired meanwhile: reads do.
        guard
            let session = sessions.update(id, now: .distantPast, { result = change(&$0) })
        else { return nil }
        if let page = session.currentStep?.progress.browserPage { browserPages[page] = id }
        if let approval = session.currentStep?.progress.approval { approvals[approval.id] = id }
        return result
    }

    /// Changes the progress of the step `serial` names in flow `id`; nil when the flow is gone or has moved on.
    @discardableResult
    func updateProgress<T: Sendable>(
        _ id: String, serial: Int, _ change: @Sendable (inout StepProgress) -> T
    ) -> T? {
        update(id) { $0.updateProgress(serial: serial, change) } ?? nil
    }

    func remove(_ id: String) {
        if let session = sessions.remove(id, now: .distantPast), let progress = session.currentStep?.progress {
            if let page = progress.browserPage { browserPages[page] = nil }
            if let approval = progress.approval { approvals[approval.id] = nil }
        }
    }

    /// The flow whose current step is the external-browser sign-in with page `token`.
    func session(forBrowserPage token: String, now: Date) -> FlowSession? {
        guard let id = browserPages[token], let session = session(id, now: now),
            session.currentStep?.progress.browserPage == token
        else { return nil }
        return session
    }

    /// Approves the one pending request `approvalID` names, while its flow still waits for it; false when
    /// there is no such pending request.
    func approve(approvalID: String, now: Date) -> Bool {
        guard let flowID = approvals[approvalID],
            let approval = sessions.value(for: flowID, now: now)?.currentStep?.progress.approval,
            approval.id == approvalID, approval.isAccount, approval.status == .pending, approval.deadline > now
        else { return false }
        return update(flowID) { flow in
            guard let serial = flow.currentStep?.serial else { return false }
            return flow.updateProgress(serial: serial) { progress -> Bool in
                switch progress {
                case .approval(var waiting) where waiting.id == approvalID:
                    waiting.status = .approved
                    progress = .approval(waiting)
                case .polling(var polling) where polling.approval.id == approvalID:
                    polling.approval.status = .approved
                    progress = .polling(polling)
                default:
                    return false
                }
                return true
            } ?? false
        } ?? false
    }

    /// Pending requests of real accounts (of `username` when given), newest deadline first.
    func pendingApprovals(username: String?, now: Date) -> [PendingApproval] {
        approvals.compactMap { id, flowID -> PendingApproval? in
            guard let session = sessions.value(for: flowID, now: now),
                let approval = session.currentStep?.progress.approval, approval.id == id,
                approval.isAccount, approval.status == .pending, approval.deadline > now,
                username == nil || approval.username == username
            else { return nil }
            return PendingApproval(
                id: id, username: approval.username, clientID: session.clientID, deadline: approval.deadline)
        }.sorted { $0.deadline > $1.deadline }
    }

    var count: Int { sessions.count }

    /// Index entries whose flow is gone, or has left the step, are dropped once they are twice the live flows
    /// (amortised O(1)).
    private func pruneIndexes(now: Date) {
        if browserPages.count > 2 * sessions.count + 64 {
            browserPages = browserPages.filter {
                sessions.value(for: $0.value, now: now)?.currentStep?.progress.browserPage == $0.key
            }
        }
        if approvals.count > 2 * sessions.count + 64 {
            approvals = approvals.filter {
                sessions.value(for: $0.value, now: now)?.currentStep?.progress.approval?.id == $0.key
            }
        }
    }
}

/// How a flow ended, for the one client and key that ran it: the authorization response it was given.
struct FinishedFlow: Sendable {
    /// How long a finished flow's answer is given again: long enough for a phone that lost the answer to ask
    /// again, short against the code's own lifetime.
    static let grace: TimeInterval = 30
    let clientID: String
    let jkt: String
    let answer: JSONValue
}

/// Messages the server "sends" (e-mail codes, password resets); the CLI and tests read them.
public actor Outbox {
    public struct Message: Sendable, Equatable {
        public let to: String
        public let username: String?
        public let subject: String
        public let body: String
        /// The one-time code in the message, if any, so tests and the demo need not parse the body.
        public let code: String?
        public let sentAt: Date
    }

    public private(set) var messages: [Message] = []

    public init() {}

    func send(_ message: Message) {
        messages.append(message)
        if messages.count > 1000 { messages.removeFirst(messages.count - 1000) }
    }

    /// The newest code sent to `username`.
    public func latestCode(for username: String) -> String? {
        messages.last { $0.username == username && $0.code != nil }?.code
    }
}
