import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRawClient
import HaapiRules
import Testing

@testable import HaapiServer

/// One flow, one user, one step at a time (issue 49 items 2 and 3): the attacks of the review, performed over
/// HTTP against the default configuration. Each asserts that the flow ends with no tokens for a user no step
/// proved.
@Suite("Flow isolation: no authenticator completes another's step", .timeLimit(.minutes(3)))
struct FlowIsolationTests {
    typealias A = AuthenticatorTests

    /// The rules of the requests to `path` (prefix) answered since `mark`.
    static func rules(_ server: TestServer, after mark: Int, path: String) -> [Rule?] {
        server.server.journal.exchanges.filter { $0.sequence > mark && $0.path.hasPrefix(path) }.map(\.rule)
    }

    static func mark(_ server: TestServer) -> Int { server.server.journal.exchanges.last?.sequence ?? 0 }

    /// Walks BankID's launch and polls to `done`, follows it, and returns who the tokens are for.
    static func finishBankID(_ launch: RawResponse, _ device: HaapiDevice) async throws -> String? {
        var answer = try await device.submit(launch.json["actions"]?[0]?["model"]?["continueActions"]?[0])
        for _ in 0..<5 where (try? A.step(answer) as? PollingStep)?.status == .pending {
            answer = try await device.submit(answer.json["actions"]?[0])
        }
        #expect((try A.step(answer) as? PollingStep)?.status == .done, "\(answer.text)")
        let done = try await device.submit(answer.json["actions"]?[0])
        return try await ConfiguredFlowTests.signedInUser(after: done, device)
    }

    @Test("the review's attack: approval for a made-up name (or another user) while BankID polls signs in nobody else")
    func approvalBankIDMixUp() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        for name in ["nobody-such-user", "approver"] {
            let device = try await A.device(server)
            let launch = try await device.startAuthenticator("bankid")
            #expect(try A.step(launch) is BankIdClientOperationStep)
            let mark = Self.mark(server)
            // The approval authenticator is not the flow's step: its form post is refused and keeps nothing.
            let posted = try await device.haapi(
                "POST", "/authn/authenticate/approve", form: [("userName", name)])
            #expect(posted.status == 400, "\(posted.text)")
            #expect(try A.problem(posted).type == .unexpectedProblem)
            #expect(Self.rules(server, after: mark, path: "/authn/authenticate/approve") == [.flowState])
            for action in ["poll", "done"] {
                let refused = try await device.haapi(
                    action == "poll" ? "GET" : "POST", "/authn/authenticate/approve/" + action)
                #expect(refused.status == 400, "\(action): \(refused.text)")
            }
            let session = try #require(device.sessionID)
            let flow = try #require(await server.server.flows.session(session, now: server.clock.now))
            #expect(
                flow.currentAuthenticator == "bankid" && flow.currentStep?.progress.approval?.username == "demouser")
            // BankID goes on and signs in the user it is configured for, never the name posted.
            #expect(try await Self.finishBankID(launch, device) == "demouser")
        }

        // Switching to the approval authenticator and back leaves nothing of the approval behind.
        let device = try await A.device(server)
        _ = try await device.startAuthenticator("bankid")
        let switched = try await device.haapi("GET", "/authn/authenticate/approve")
        #expect(try A.step(switched).actions.first is FormAction)
        let pending = try await device.submit(switched.json["actions"]?[0], [("userName", "nobody-such-user")])
        #expect((try A.step(pending) as? PollingStep)?.status == .pending)
        let mark = Self.mark(server)
        let bankIDPoll = try await device.haapi("GET", "/authn/authenticate/bankid/poll")
        #expect(
            bankIDPoll.status == 400
                && Self.rules(server, after: mark, path: "/authn/authenticate/bankid") == [.flowState])
        let again = try await device.haapi("GET", "/authn/authenticate/bankid")
        #expect(try A.step(again) is BankIdClientOperationStep)
        #expect(try await Self.finishBankID(again, device) == "demouser")
    }

    /// The requests of `authenticator` that act on its progress (never a plain start, which may switch).
    static func progressRequests(_ authenticator: String) -> [(method: String, path: String, form: [(String, String)])]
    {
        let base = "/authn/authenticate/" + authenticator
        return [
            ("POST", base, [("userName", "approver"), ("password", "Password1"), ("otp", "123456")]),
            ("GET", base + "/poll", []), ("POST", base + "/done", [("moveOn", "true")]),
            ("POST", base + "/verify", [("otp", "123456")]), ("GET", base + "/resume?_resume_nonce=x", []),
            ("POST", base + "/step-0", [("otp", "123456"), ("code", "123456")]),
            ("POST", base + "/register-start", [("userName", "approver"), ("password", "Password1")]),
        ]
    }

    @Test("every pair of the default configuration's authenticators: a started one's step takes no request of another")
    func everyPair() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let configuration = try TestConfiguration.make()
        let login = configuration.login(for: try #require(configuration.clients.first { $0.id == "haapi-demo" }))
        guard case .choice(let options)? = login.steps.first else { throw UnexpectedResponse("no choice") }
        let entries = options.flatMap(LoginStep.entries(of:))
        let all = login.authenticatorIDs.sorted()
        #expect(entries.count == 8 && all.count == 9)
        for started in entries {
            let device = try await A.device(server)
            let first = try await device.startAuthenticator(started)
            #expect(first.status == 200, "\(started): \(first.text)")
            let session = try #require(device.sessionID)
            let before = await server.server.flows.session(session, now: server.clock.now)?.currentStep
            for other in all where other != started {
                let mark = Self.mark(server)
                for request in Self.progressRequests(other) {
                    let answer = try await device.haapi(
                        request.method, request.path, form: request.method == "POST" ? request.form : nil)
                    #expect(answer.status == 400, "\(started) → \(request.method) \(request.path): \(answer.text)")
                }
                let rules = Self.rules(server, after: mark, path: "/authn/authenticate/" + other)
                #expect(
                    rules.count == Self.progressRequests(other).count && rules.allSatisfy { $0 == .flowState },
                    "\(started) → \(other): \(rules)")
            }
            // The started step is where it was, its progress untouched.
            let after = await server.server.flows.session(session, now: server.clock.now)?.currentStep
            #expect(after?.serial == before?.serial && after?.cursor == before?.cursor, "\(started)")
            #expect(
                after?.progress.approval?.id == before?.progress.approval?.id
                    && after?.progress.browserPage == before?.progress.browserPage, "\(started)")
        }
    }

    @Test("the chained demo login: password, then the SMS code for the same user; a wrong code is refused at its step")
    func chainedDemoLogin() async throws {
        let server = try await TestServer.shared.get()
        let device = try await A.device(server)
        let login = try await device.startAuthenticator("password-then-code")
        // The second factor is out of reach before the first is done.
        #expect(try await device.haapi("GET", "/authn/authenticate/sms").status == 400)
        let wrong = try await device.submit(
            login.json["actions"]?[0], [("userName", "approver"), ("password", "nope")])
        let unknown = try await device.submit(
            login.json["actions"]?[0], [("userName", "nobody"), ("password", "nope")])
        #expect(try A.problem(wrong).type == .incorrectCredentialsProblem)
        #expect(try A.problem(unknown).type == .incorrectCredentialsProblem)
        #expect(try A.problem(wrong).title?.description == A.problem(unknown).title?.description)
        let next = try await device.submit(
            login.json["actions"]?[0], [("userName", "approver"), ("password", "Password1")])
        #expect(next.json["type"] == "redirection-step", "\(next.text)")
        let sms = try await device.submit(next.json["actions"]?[0])
        let form = try #require(try A.step(sms) as? InteractiveFormStep)
        #expect(form.formActions.first?.model.fields.map(\.name) == ["code"])
        let bad = try await device.submit(sms.json["actions"]?[0], [("code", "12345")])
        let invalid = try #require(try A.problem(bad) as? InvalidInputProblem)
        #expect(invalid.invalidFields.map(\.name) == ["code"])
        let done = try await device.submit(sms.json["actions"]?[0], [("code", "654321")])
        #expect(try await ConfiguredFlowTests.signedInUser(after: done, device) == "approver")
    }

    @Test("a later factor for another user is refused, and the flow goes on for the first one")
    func laterFactorForAnotherUser() async throws {
        var configuration = try TestConfiguration.make()
        configuration.logins.append(
            LoginConfiguration(id: "two", steps: [.authenticator("password"), .authenticator("email")]))
        configuration.clients[0].login = "two"
        let server = try await TestServer(configuration: configuration)
        defer { Task { await server.stop() } }
        let device = try await A.device(server)
        let login = try await device.startAuthenticator("password")
        let next = try await device.submit(
            login.json["actions"]?[0], [("userName", "approver"), ("password", "Password1")])
        let code = try await device.submit(next.json["actions"]?[0])
        // The code goes straight to the first step's user; no name is asked for.
        #expect(try A.step(code).actions.first.map { ($0 as? FormAction)?.model.fields.map(\.name) } == ["otp"])
        let mark = Self.mark(server)
        let other = try await device.haapi("POST", "/authn/authenticate/email", form: [("userName", "demouser")])
        #expect(try A.problem(other).type == .authenticationFailedProblem)
        #expect(Self.rules(server, after: mark, path: "/authn/authenticate/email") == [.flowSubject])
        let sent = try #require(await server.server.outbox.latestCode(for: "approver"))
        let done = try await device.submit(code.json["actions"]?[0], [("otp", sent)])
        #expect(try await ConfiguredFlowTests.signedInUser(after: done, device) == "approver")
    }
}
