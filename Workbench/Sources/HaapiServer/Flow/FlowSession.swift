import Foundation

/// One HAAPI authorization flow, from the authorize request to the authorization code. It is bound to the key
/// of the HAAPI access token that started it, and walks its client's login (`LoginConfiguration`).
///
/// What a request can change is typed by who owns it: the flow's subject (the one user every step proves), and
/// the progress of the one step the flow is at, which only that step's authenticator reads or changes. A step
/// ends with `complete(serial:username:now:)`, which moves the flow on.
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
    /// The client's login when the flow started.
    let login: LoginConfiguration
    /// The user the first finished step proved; every later step must prove the same one.
    private(set) var subject: String?
    private(set) var stage: Stage

    enum Stage: Sendable {
        /// At a step of the login.
        case authenticating(FlowStep)
        /// Every step of the login is done: consent (when the client asks for it) and the code remain.
        case authenticated(at: Date)
    }

    init(
        id: String, clientID: String, jkt: String, redirectURI: String, scope: [String], state: String?,
        nonce: String?, codeChallenge: String?, expiresAt: Date, login: LoginConfiguration
    ) {
        self.id = id
        self.clientID = clientID
        self.jkt = jkt
        self.redirectURI = redirectURI
        self.scope = scope
        self.state = state
        self.nonce = nonce
        self.codeChallenge = codeChallenge
        self.expiresAt = expiresAt
        self.login = login
        stage = .authenticating(FlowStep(cursor: .start, serial: 0, progress: .idle))
    }

    /// The step the flow is at; nil once the login is complete.
    var currentStep: FlowStep? {
        if case .authenticating(let step) = stage { return step }
        return nil
    }

    /// The user who completed the login; nil until then.
    var authenticatedUser: (username: String, at: Date)? {
        guard case .authenticated(let at) = stage, let subject else { return nil }
        return (subject, at)
    }

    /// The authenticator the flow is at; nil at a choice or past the login.
    var currentAuthenticator: String? {
        guard let step = currentStep, case .authenticator(let id)? = login.step(at: step.cursor) else { return nil }
        return id
    }

    // MARK: Moving through the login

    /// Why a request cannot act on the step it names.
    enum StepRefusal: Error, Equatable {
        /// The login is complete.
        case loginComplete
        /// The request names an authenticator other than the flow's current step (and does not start one the
        /// flow may switch to).
        case notCurrent(current: String?)
        /// The step moved on (or back) since the request read it.
        case stale
        /// The step proved someone other than the flow's subject.
        case otherUser
    }

    /// The step `authenticator` may act on. A request that `starts` an authenticator which begins an option
    /// of the choice the flow is at (or may go back to: no step of the option is done yet) moves the flow
    /// there first, with fresh progress: the option the flow left keeps nothing.
    mutating func step(for authenticator: String, starting: Bool) -> Result<FlowStep, StepRefusal> {
        guard case .authenticating(let step) = stage else { return .failure(.loginComplete) }
        if case .authenticator(authenticator)? = login.step(at: step.cursor) { return .success(step) }
        guard starting, let cursor = login.entering(login.choicePoint(step.cursor), authenticator: authenticator)
        else { return .failure(.notCurrent(current: currentAuthenticator)) }
        let moved = FlowStep(cursor: cursor, serial: step.serial + 1, progress: .idle)
        stage = .authenticating(moved)
        return .success(moved)
    }

    /// Goes back to the choice the flow may still change ("choose another way"), dropping the progress of the
    /// step it leaves. A flow whose current step has no such choice keeps it as it is.
    mutating func goBackToChoice() {
        guard case .authenticating(let step) = stage else { return }
        let point = login.choicePoint(step.cursor)
        guard point != step.cursor else { return }
        stage = .authenticating(FlowStep(cursor: point, serial: step.serial + 1, progress: .idle))
    }

    /// Changes the progress of the step `serial` names; false (and nothing changed) when the flow is no longer
    /// at that step.
    mutating func updateProgress<T>(serial: Int, _ change: (inout StepProgress) -> T) -> T? {
        guard case .authenticating(var step) = stage, step.serial == serial else { return nil }
        let result = change(&step.progress)
        stage = .authenticating(step)
        return result
    }

    /// What finishing a step did.
    enum Completion: Equatable {
        /// The flow is at its next step (an authenticator or a choice).
        case next
        /// That was the login's last step.
        case loginComplete
    }

    /// Finishes the step `serial` names for `username`: the first finished step fixes the flow's subject,
    /// a later one must prove the same user. The flow moves to the next step, or out of the login.
    mutating func complete(serial: Int, username: String, now: Date) -> Result<Completion, StepRefusal> {
        guard case .authenticating(let step) = stage, step.serial == serial else { return .failure(.stale) }
        if let subject, subject != username { return .failure(.otherUser) }
        subject = username
        guard let next = login.advanced(step.cursor) else {
            stage = .authenticated(at: now)
            return .success(.loginComplete)
        }
        stage = .authenticating(FlowStep(cursor: next, serial: step.serial + 1, progress: .idle))
        return .success(.next)
    }
}

/// The step a flow is at.
struct FlowStep: Sendable {
    /// Where in the login.
    let cursor: LoginCursor
    /// Counts the flow's moves: a change worked out for one step applies only while the flow is still at it.
    let serial: Int
    /// What the step's authenticator has done so far.
    var progress: StepProgress
}

/// The progress of one step, of the kind its authenticator keeps. The flow holds one, for its current step
/// only: moving to another step starts from `.idle`.
enum StepProgress: Sendable {
    /// Nothing done yet.
    case idle
    /// E-mail code: the code sent, for whom.
    case emailCode(EmailChallenge)
    /// "Approve on another device": the request waiting for approval.
    case approval(Approval)
    /// External browser: the sign-in page's token, and what the page proved.
    case browser(BrowserLogin)
    /// Passkeys: the WebAuthn ceremony offered (its challenge is used once).
    case passkey(PasskeyCeremony)
    /// A `form` authenticator: the step whose submission comes next, and the user its fields named so far.
    case form(FormProgress)
    /// A `polling` authenticator: its approval and the polls answered.
    case polling(PollingProgress)
    /// A `recorded` authenticator: the recorded steps served.
    case recorded(RecordedProgress)

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

    struct BrowserLogin: Sendable {
        let pageToken: String
        /// Set by the page once its sign-in succeeded, with the user it proved.
        var proven: (resumeNonce: String, username: String)?
    }

    struct PasskeyCeremony: Sendable {
        enum Kind: Sendable { case registration, authentication }
        let kind: Kind
        let challenge: Data
        /// Registration: the account whose password this flow proved.
        let username: String?
        let userHandle: Data?
    }

    struct FormProgress: Sendable {
        /// The form step whose submission comes next.
        var step: Int
        /// The user a `username` field named (not yet proven).
        var username: String?
    }

    struct PollingProgress: Sendable {
        var approval: Approval
        var polls: Int
    }

    struct RecordedProgress: Sendable {
        /// The recorded step served last.
        var node: Int
        /// How many times in a row it was served (a recorded wait is served as often as it was recorded).
        var repeats: Int
    }

    /// The request waiting for approval, of an approval or polling step.
    var approval: Approval? {
        switch self {
        case .approval(let approval): approval
        case .polling(let polling): polling.approval
        default: nil
        }
    }

    /// The sign-in page of an external-browser step.
    var browserPage: String? {
        if case .browser(let browser) = self { return browser.pageToken }
        return nil
    }
}
