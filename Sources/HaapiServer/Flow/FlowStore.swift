import Foundation
import HaapiDriver

/// One HAAPI authorization flow, from the authorize request to the authorization code.
/// It is bound to the key of the HAAPI access token that started it.
struct FlowSession: Sendable {
    let id: String
    let clientID: String
    let jkt: String
    let redirectURI: String
    let scope: [String]
    let state: String?
    let nonce: String?
    let codeChallenge: String?
    let expiresAt: Date
    var username: String?
    var authTime: Date?
    var email: EmailChallenge?
    var approval: Approval?
    var browser: BrowserLogin?
    var passkey: PasskeyCeremony?
    /// Where the flow is in a configured authenticator (form, polling, recorded).
    var custom: CustomProgress?

    /// Progress through a `form`, `polling` or `recorded` authenticator. It belongs to one authenticator, so a
    /// request naming another one's step starts over instead of going on.
    struct CustomProgress: Sendable {
        let authenticatorID: String
        /// Form: the step whose submission comes next. Recorded: the furthest step served.
        var step: Int
        /// The user a form's `username` field named.
        var username: String?
        /// Polls answered so far.
        var polls: Int
    }

    struct EmailChallenge: Sendable {
        let username: String?
        /// Whose wrong-code counter this challenge counts against: the account, or the unknown name typed.
        /// The counter is not the flow's, so a resend, a new code or a new flow does not reset it.
        let attemptName: String
        let codeHash: String
        let expiresAt: Date
    }

    struct Approval: Sendable {
        enum Status: Sendable { case pending, approved }
        /// Unguessable; the approving side names it, so an approval applies to this flow only.
        let id: String
        let username: String
        /// False when the name is not an account: the flow waits like any other, but nobody can approve it.
        let isAccount: Bool
        var status: Status
        let deadline: Date
    }

    /// A WebAuthn ceremony offered in this flow; its challenge is used once.
    struct PasskeyCeremony: Sendable {
        enum Kind: Sendable { case registration, authentication }
        let kind: Kind
        let challenge: Data
        let username: String?
        let userHandle: Data?
    }

    struct BrowserLogin: Sendable {
        let pageToken: String
        var resumeNonce: String?
        var username: String?
    }
}

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

    init(capacity: Int = 10_000) {
        sessions = ExpiringStore(capacity: capacity)
    }

    func insert(_ session: FlowSession, now: Date) {
        sessions.set(session, for: session.id, expiresAt: session.expiresAt, now: now)
        pruneIndexes(now: now)
    }

    func session(_ id: String, now: Date) -> FlowSession? {
        sessions.value(for: id, now: now)
    }

    /// Applies `change` to a live session and returns the result.
    @discardableResult
    func update(_ id: String, _ change: @Sendable (inout FlowSession) -> Void) -> FlowSession? {
        // Like a lookup by id, an update does not care whether the flow has expired meanwhile: reads do.
        guard let session = sessions.update(id, now: .distantPast, change) else { return nil }
        if let page = session.browser?.pageToken { browserPages[page] = id }
        if let approval = session.approval { approvals[approval.id] = id }
        return session
    }

    func remove(_ id: String) {
        if let session = sessions.remove(id, now: .distantPast) {
            if let page = session.browser?.pageToken { browserPages[page] = nil }
            if let approval = session.approval { approvals[approval.id] = nil }
        }
    }

    func session(forBrowserPage token: String, now: Date) -> FlowSession? {
        guard let id = browserPages[token] else { return nil }
        return session(id, now: now)
    }

    /// Approves the one pending request `approvalID` names; false when there is no such pending request.
    func approve(approvalID: String, now: Date) -> Bool {
        guard let flowID = approvals[approvalID], let session = sessions.value(for: flowID, now: now),
            var approval = session.approval, approval.id == approvalID, approval.isAccount, approval.status == .pending,
            approval.deadline > now
        else { return false }
        approval.status = .approved
        sessions.update(flowID, now: now) { $0.approval = approval }
        return true
    }

    /// Pending requests of real accounts (of `username` when given), newest deadline first.
    func pendingApprovals(username: String?, now: Date) -> [PendingApproval] {
        approvals.compactMap { id, flowID -> PendingApproval? in
            guard let session = sessions.value(for: flowID, now: now), let approval = session.approval,
                approval.id == id,
                approval.isAccount, approval.status == .pending, approval.deadline > now,
                username == nil || approval.username == username
            else { return nil }
            return PendingApproval(
                id: id, username: approval.username, clientID: session.clientID, deadline: approval.deadline)
        }.sorted { $0.deadline > $1.deadline }
    }

    var count: Int { sessions.count }

    /// Index entries whose flow is gone are dropped once they are twice the live flows (amortised O(1)).
    private func pruneIndexes(now: Date) {
        if browserPages.count > 2 * sessions.count + 64 {
            browserPages = browserPages.filter { sessions.value(for: $0.value, now: now)?.browser?.pageToken == $0.key }
        }
        if approvals.count > 2 * sessions.count + 64 {
            approvals = approvals.filter { sessions.value(for: $0.value, now: now)?.approval?.id == $0.key }
        }
    }
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
