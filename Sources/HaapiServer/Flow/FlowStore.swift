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

    struct EmailChallenge: Sendable {
        let username: String?
        let codeHash: String
        let expiresAt: Date
        var failures: Int
    }

    struct Approval: Sendable {
        enum Status: Sendable { case pending, approved }
        let username: String
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

/// Live flows, in memory: a flow is short-lived and restarts cleanly if the server does.
actor FlowStore {
    private var sessions: [String: FlowSession] = [:]
    private var browserPages: [String: String] = [:]

    /// Abandoned flows are dropped here, so an idle flood of authorize requests cannot grow memory for long.
    func insert(_ session: FlowSession, now: Date) {
        if sessions.count >= 10_000 {
            sessions = sessions.filter { $0.value.expiresAt > now }
            browserPages = browserPages.filter { sessions[$0.value] != nil }
        }
        sessions[session.id] = session
    }

    func session(_ id: String, now: Date) -> FlowSession? {
        guard let session = sessions[id] else { return nil }
        guard session.expiresAt > now else {
            sessions[id] = nil
            return nil
        }
        return session
    }

    /// Applies `change` to a live session and returns the result.
    @discardableResult
    func update(_ id: String, _ change: @Sendable (inout FlowSession) -> Void) -> FlowSession? {
        guard var session = sessions[id] else { return nil }
        change(&session)
        sessions[id] = session
        if let page = session.browser?.pageToken { browserPages[page] = id }
        return session
    }

    func remove(_ id: String) {
        if let page = sessions[id]?.browser?.pageToken { browserPages[page] = nil }
        sessions[id] = nil
    }

    func session(forBrowserPage token: String, now: Date) -> FlowSession? {
        guard let id = browserPages[token] else { return nil }
        return session(id, now: now)
    }

    /// Approves every pending "approve on another device" request of `username`; returns how many.
    func approve(username: String, now: Date) -> Int {
        var count = 0
        for (id, session) in sessions {
            guard var approval = session.approval, approval.username == username, approval.status == .pending, approval.deadline > now else { continue }
            approval.status = .approved
            sessions[id]?.approval = approval
            count += 1
        }
        return count
    }

    func pendingApprovals(now: Date) -> [String] {
        sessions.values.compactMap { session in
            guard let approval = session.approval, approval.status == .pending, approval.deadline > now else { return nil }
            return approval.username
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
