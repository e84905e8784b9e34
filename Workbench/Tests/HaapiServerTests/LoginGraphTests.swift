import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRawClient
import Testing

@testable import HaapiServer

/// Logins as graphs (issue 49): sequences and nested choices of authenticators, one user per flow, and each
/// step's progress owned by that step.
@Suite("Logins as graphs: one user per flow, typed step progress")
struct LoginGraphTests {
    typealias A = AuthenticatorTests

    // MARK: The graph itself

    static let nested = LoginConfiguration(
        id: "n",
        steps: [
            .authenticator("password"),
            .choice([
                [.authenticator("sms"), .choice([[.authenticator("bankid")], [.authenticator("encap")]])],
                [.choice([[.authenticator("email")], [.authenticator("approve")]]), .authenticator("otp")],
            ]),
            .authenticator("consent-like"),
        ])

    @Test(
        "a cursor walks sequences, enters options by the authenticator that begins them, and goes back only to an untouched choice"
    )
    func cursor() throws {
        let login = Self.nested
        let start = LoginCursor.start
        #expect(login.step(at: start) == .authenticator("password"))
        let choice = try #require(login.advanced(start))
        guard case .choice? = login.step(at: choice) else { throw UnexpectedResponse("not at the choice") }
        #expect(login.entering(choice, authenticator: "password") == nil)
        // Through the second option's leading choice.
        let approve = try #require(login.entering(choice, authenticator: "approve"))
        #expect(login.step(at: approve) == .authenticator("approve") && approve.description == "1.1.0.1.0")
        #expect(login.choicePoint(approve) == choice)
        let otp = try #require(login.advanced(approve))
        #expect(login.step(at: otp) == .authenticator("otp"))
        #expect(login.choicePoint(otp) == otp, "a finished step is not undone")
        let last = try #require(login.advanced(otp))
        #expect(login.step(at: last) == .authenticator("consent-like"))
        #expect(login.advanced(last) == nil)
        // The first option: sms, then a choice inside it, then out to the last step.
        let sms = try #require(login.entering(choice, authenticator: "sms"))
        let inner = try #require(login.advanced(sms))
        let encap = try #require(login.entering(inner, authenticator: "encap"))
        #expect(login.choicePoint(encap) == inner)
        #expect(try login.step(at: #require(login.advanced(encap))) == .authenticator("consent-like"))
        #expect(
            login.authenticatorIDs == ["password", "sms", "bankid", "encap", "email", "approve", "otp", "consent-like"])
    }

    static func refusal(_ result: Result<FlowStep, FlowSession.StepRefusal>) -> FlowSession.StepRefusal? {
        if case .failure(let refusal) = result { return refusal }
        return nil
    }

    @Test(
        "a flow fixes its subject at its first finished step; a later step for another user is refused and changes nothing"
    )
    func subject() throws {
        var flow = FlowSession(
            id: "f", clientID: "c", jkt: "k", redirectURI: "app://x", scope: [], state: nil, nonce: nil,
            codeChallenge: nil, expiresAt: .distantFuture, login: Self.nested)
        let now = Date()
        #expect(Self.refusal(flow.step(for: "sms", starting: true)) == .notCurrent(current: "password"))
        let first = try flow.step(for: "password", starting: false).get()
        #expect(flow.complete(serial: first.serial, username: "alice", now: now) == .success(.next))
        #expect(flow.subject == "alice")
        #expect(flow.complete(serial: first.serial, username: "alice", now: now) == .failure(.stale))

        // At the choice: only a start enters an option; another option's start switches while nothing of the
        // first one is done, and the progress of the step it leaves is gone.
        #expect(Self.refusal(flow.step(for: "approve", starting: false)) == .notCurrent(current: nil))
        let approve = try flow.step(for: "approve", starting: true).get()
        let pending = StepProgress.approval(
            .init(id: "a", username: "alice", isAccount: true, status: .pending, deadline: .distantFuture))
        #expect(flow.updateProgress(serial: approve.serial) { $0 = pending } != nil)
        let sms = try flow.step(for: "sms", starting: true).get()
        #expect(sms.serial > approve.serial && flow.currentStep?.progress.approval == nil)
        #expect(flow.updateProgress(serial: approve.serial) { $0 = pending } == nil, "the old step's serial is stale")
        #expect(flow.complete(serial: approve.serial, username: "alice", now: now) == .failure(.stale))

        // A later factor for another user is refused where it stands; the flow stays at the step.
        #expect(flow.complete(serial: sms.serial, username: "mallory", now: now) == .failure(.otherUser))
        #expect(flow.currentAuthenticator == "sms" && flow.subject == "alice")
        #expect(flow.complete(serial: sms.serial, username: "alice", now: now) == .success(.next))
        // Past sms, its option's other entry is out of reach: going back never undoes a finished step.
        #expect(Self.refusal(flow.step(for: "approve", starting: true)) == .notCurrent(current: nil))
        flow.goBackToChoice()
        let bankid = try flow.step(for: "bankid", starting: true).get()
        #expect(flow.complete(serial: bankid.serial, username: "alice", now: now) == .success(.next))
        let last = try flow.step(for: "consent-like", starting: false).get()
        #expect(flow.complete(serial: last.serial, username: "alice", now: now) == .success(.loginComplete))
        #expect(flow.authenticatedUser?.username == "alice")
        #expect(Self.refusal(flow.step(for: "consent-like", starting: true)) == .loginComplete)
    }

    // MARK: Configuration

    static func configuration(
        _ logins: String, clients: String = "[]", authenticators extra: [String] = []
    )
        throws -> ServerConfiguration
    {
        let authenticators =
            [
                #"{"id":"password","type":"username-password","title":"Password"}"#,
                #"{"id":"email","type":"email-otp","title":"E-mail"}"#,
                #"{"id":"sms","type":"form","title":"SMS","steps":[{"title":"Code","fields":[{"name":"code","type":"text","accept":"[0-9]{6}"}]}]}"#,
                #"{"id":"bankid","type":"polling","title":"BankID","clientOperation":"bankid","pollsUntilDone":3}"#,
            ] + extra
        let json =
            #"{"clients":"# + clients + #","users":[{"username":"u","password":"p"}],"authenticators":["#
            + authenticators.joined(separator: ",") + #"],"logins":"# + logins + "}"
        return try ServerConfiguration.load(json: Data(json.utf8))
    }

    @Test(
        "a login the server cannot walk is refused at load, naming its place",
        arguments: [
            (
                #"[{"id":"l","steps":["sms"]}]"#,
                "logins[0].steps[0]: \"sms\" proves the user an earlier step identified"
            ),
            (
                #"[{"id":"l","steps":[{"choice":["password",["bankid"]]}]}]"#,
                "logins[0].steps[0].choice[1][0]: \"bankid\" proves the user"
            ),
            (
                #"[{"id":"l","steps":[{"choice":["password","email"]},"sms",{"choice":[["password","bankid"],["password"]]}]}]"#,
                "logins[0].steps[2].choice[1]: options 0 and 1 both begin with \"password\""
            ),
            (#"[{"id":"l","steps":["password","nope"]}]"#, "logins[0].steps[1]: \"nope\" is not one of the configured"),
            (#"[{"id":"l","steps":[]}]"#, "logins[0].steps: a sequence needs a step"),
            (#"[{"id":"l","steps":[{"choice":[]}]}]"#, "logins[0].steps[0].choice: a choice needs at least one option"),
            (#"[{"id":"l","steps":["password"]},{"id":"l","steps":["email"]}]"#, "login \"l\" is defined twice"),
        ])
    func badLogin(logins: String, expected: String) {
        do {
            _ = try Self.configuration(logins)
            Issue.record("accepted: \(logins)")
        } catch let error as ConfigurationError {
            #expect(error.detail.contains(expected), "\(error.detail)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("a step that proves an earlier step's user is fine after a choice whose every option identifies one")
    func identifiedOnEveryPath() throws {
        let configuration = try Self.configuration(
            #"[{"id":"l","steps":[{"choice":["password",["email"]]},"sms",{"choice":["bankid",["sms"]]}]}]"#)
        #expect(configuration.logins.first?.authenticatorIDs == ["password", "email", "sms", "bankid"])
    }

    @Test(
        "a client names a login that exists, not beside authenticators; one it lists must identify the user",
        arguments: [
            (#"[{"id":"c","attestation":"software","login":"none"}]"#, "client \"c\": login \"none\" is not one of"),
            (
                #"[{"id":"c","attestation":"software","login":"l","authenticators":["password"]}]"#,
                "client \"c\" names both a login and authenticators"
            ),
            (
                #"[{"id":"c","attestation":"software","authenticators":["sms"]}]"#,
                "client \"c\": authenticator \"sms\" cannot begin a login"
            ),
        ])
    func badClientLogin(clients: String, expected: String) {
        do {
            _ = try Self.configuration(#"[{"id":"l","steps":["password","sms"]}]"#, clients: clients)
            Issue.record("accepted: \(clients)")
        } catch let error as ConfigurationError {
            #expect(error.detail.contains(expected), "\(error.detail)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("without a login, a client is offered every authenticator that can begin one")
    func defaultLogin() throws {
        let configuration = try Self.configuration(#"[]"#, clients: #"[{"id":"c","attestation":"software"}]"#)
        let login = configuration.login(for: configuration.clients[0])
        #expect(login.steps == [.choice([[.authenticator("password")], [.authenticator("email")]])])
    }
}
