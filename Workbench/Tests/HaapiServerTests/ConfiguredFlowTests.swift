import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRawClient
import Testing

@testable import HaapiServer

/// A team's own flows on the dev server (issue 39): form, polling and recorded authenticators from the
/// configuration, walked with the raw HAAPI client and decoded with HaapiModel.
@Suite("Configured authenticators: forms, polling, recorded steps")
struct ConfiguredFlowTests {
    /// The test configuration plus `authenticators` (JSON objects as a configuration file has them).
    static func server(adding authenticators: [String]) async throws -> TestServer {
        var configuration = try TestConfiguration.make()
        let json =
            #"{"clients":[],"users":[{"username":"demouser","password":"x"},{"username":"approver","password":"x"}],"authenticators":["#
            + authenticators.joined(separator: ",") + "]}"
        configuration.authenticators += try ServerConfiguration.load(json: Data(json.utf8)).authenticators
        // The demo client without its login: a choice of every authenticator, the added ones too.
        if let demo = configuration.clients.firstIndex(where: { $0.id == "haapi-demo" }) {
            configuration.clients[demo].login = nil
        }
        return try await TestServer(configuration: configuration)
    }

    /// Follows the redirection an authenticator ends with, up to the authorization code.
    static func code(after response: RawResponse, _ device: HaapiDevice) async throws -> String? {
        let resume = try await device.submit(response.json["actions"]?[0])
        return resume.json["properties"]?["code"]?.stringValue
    }

    /// Follows the redirection to the code, redeems it and asks UserInfo who signed in.
    static func signedInUser(after response: RawResponse, _ device: HaapiDevice) async throws -> String? {
        guard let code = try await code(after: response, device) else { return nil }
        let tokens = try await device.redeem(code: code)
        let token = try #require(tokens.json["access_token"]?.stringValue, "\(tokens.text)")
        let info = try await UserInfoTests.get(
            device, authorization: "DPoP " + token,
            proof: try device.proof("GET", device.url("/oauth/userinfo"), accessToken: token))
        return info.json["sub"]?.stringValue
    }

    @Test("the default one-time-code form: accept pattern, invalidMessage, unknown and oversized fields, a replay")
    func oneTimeCode() async throws {
        let server = try await TestServer.shared.get()
        let device = try await AuthenticatorTests.device(server)
        let step = try await device.startAuthenticator("otp")
        let form = try #require((try AuthenticatorTests.step(step) as? InteractiveFormStep)?.formActions.first)
        #expect(form.model.fields.map(\.name) == ["otp"] && form.model.actionTitle?.description == "Verify")
        let action = step.json["actions"]?[0]

        let wrong = try await device.submit(action, [("otp", "12ab56")])
        let invalid = try #require(try AuthenticatorTests.problem(wrong) as? InvalidInputProblem)
        #expect(invalid.invalidFields.map(\.name) == ["otp"])
        #expect(invalid.invalidFields.first?.detail?.description == "The code is six digits")
        // The pattern is anchored: a valid code followed by a newline or more digits is not one.
        for almost in ["123456\n", "1234567", " 123456"] {
            let refused = try await device.submit(action, [("otp", almost)])
            #expect(try AuthenticatorTests.problem(refused).type == .invalidInputProblem, "\(almost.debugDescription)")
        }
        let extra = try await device.submit(action, [("otp", "123456"), ("admin", "1")])
        let unexpected = try #require(try AuthenticatorTests.problem(extra) as? InvalidInputProblem)
        #expect(
            unexpected.invalidFields.map(\.name) == ["admin"] && unexpected.invalidFields.first?.reason == "unexpected")
        let huge = try await device.submit(action, [("otp", String(repeating: "1", count: 5000))])
        #expect(try AuthenticatorTests.problem(huge).type == .invalidInputProblem)

        let accepted = try await device.submit(action, [("otp", "123456")])
        #expect(accepted.json["type"] == "redirection-step")
        // The same form again: the flow is past it.
        let replay = try await device.submit(action, [("otp", "123456")])
        #expect(replay.status == 400)
        #expect(try AuthenticatorTests.problem(replay).type == .unexpectedProblem)
        #expect(try await Self.signedInUser(after: accepted, device) == "demouser")
    }

    @Test("a two-step form signs in the user its username field names; an unknown one is refused at its step")
    func multiStepForm() async throws {
        let server = try await Self.server(adding: [
            #"""
            {"id": "corp", "type": "form", "title": "Corporate sign-in", "steps": [
              {"title": "Who are you?", "fields": [{"name": "username", "type": "username", "label": "Employee id"}]},
              {"title": "Second factor", "submit": "Sign in", "messages": ["Pick a way"],
               "fields": [
                 {"name": "method", "type": "select", "label": "Method",
                  "options": [{"label": "SMS", "value": "sms"}, {"label": "Token", "value": "token"}]},
                 {"name": "remember", "type": "checkbox", "label": "Remember me"},
                 {"name": "flowId", "type": "hidden", "value": "abc"}
               ]}
            ]}
            """#
        ])
        defer { Task { await server.stop() } }
        for user in ["nobody", "approver"] {
            let device = try await AuthenticatorTests.device(server)
            let first = try await device.startAuthenticator("corp")
            // The form checks no password: an unknown name is refused at the step that names it, and the flow
            // stays there for another try.
            let unknown = try await device.submit(first.json["actions"]?[0], [("username", "nobody")])
            #expect(try AuthenticatorTests.problem(unknown).type == .incorrectCredentialsProblem)
            guard user == "approver" else { continue }
            let second = try await device.submit(first.json["actions"]?[0], [("username", user)])
            let step = try #require(try AuthenticatorTests.step(second) as? InteractiveFormStep)
            #expect(step.formActions.first?.model.fields.map(\.name) == ["method", "remember", "flowId"])
            #expect(step.messages.map(\.text.description) == ["Pick a way"])
            let notAnOption = try await device.submit(second.json["actions"]?[0], [("method", "carrier-pigeon")])
            #expect(try AuthenticatorTests.problem(notAnOption).type == .invalidInputProblem)
            let done = try await device.submit(second.json["actions"]?[0], [("method", "token")])
            #expect(try await Self.signedInUser(after: done, device) == "approver", "\(done.text)")
        }
    }

    @Test("BankID: the launch step the SDK decodes, pending for two polls, done on the third, then signed in")
    func bankID() async throws {
        let server = try await TestServer.shared.get()
        let device = try await AuthenticatorTests.device(server)
        let launch = try await device.startAuthenticator("bankid")
        let step = try #require(try AuthenticatorTests.step(launch) as? BankIdClientOperationStep)
        let token = try #require(step.actionModel.autoStartToken)
        #expect(step.actionModel.href == "bankid:///?autostarttoken=\(token)&redirect=null")
        #expect(step.actionModel.redirect?.contains("%2Fbankid%2Fpoll") == true)
        #expect(step.actionModel.errorActions.first?.kind == .bankIDOtherDevice)
        var answer = try await device.submit(launch.json["actions"]?[0]?["model"]?["continueActions"]?[0])
        var statuses: [PollingStatus] = []
        for _ in 0..<3 {
            let polling = try #require(try AuthenticatorTests.step(answer) as? PollingStep)
            statuses.append(polling.status)
            if polling.status != .pending { break }
            answer = try await device.submit(answer.json["actions"]?[0])
        }
        #expect(statuses == [.pending, .pending, .done])
        let signedIn = try await device.submit(answer.json["actions"]?[0])
        #expect(try await Self.signedInUser(after: signedIn, device) == "demouser", "\(signedIn.text)")
    }

    @Test("polling without a poll count waits for haapi approve; Encap's launch step decodes with its code")
    func approvedPolling() async throws {
        let server = try await Self.server(adding: [
            #"{"id": "push", "type": "polling", "title": "Push", "user": "approver"}"#,
            #"{"id": "encap", "type": "polling", "title": "Encap", "user": "approver", "clientOperation": "encap-auto-activation", "pollsUntilDone": 1}"#,
        ])
        defer { Task { await server.stop() } }
        let device = try await AuthenticatorTests.device(server)
        let waiting = try await device.startAuthenticator("push")
        #expect((try AuthenticatorTests.step(waiting) as? PollingStep)?.status == .pending)
        let pending = try #require(await server.server.pendingApprovals(for: "approver").first)
        let early = try await device.submit(waiting.json["actions"]?[0])
        #expect((try AuthenticatorTests.step(early) as? PollingStep)?.status == .pending)
        #expect(await server.server.approve(approvalID: pending.id))
        let done = try await device.submit(early.json["actions"]?[0])
        #expect((try AuthenticatorTests.step(done) as? PollingStep)?.status == .done)

        let other = try await AuthenticatorTests.device(server)
        let launch = try await other.startAuthenticator("encap")
        let encap = try #require(try AuthenticatorTests.step(launch) as? EncapClientOperationStep)
        #expect(encap.actionModel.activationCode?.count == 8)
        // The done form of another flow's authenticator does not sign this one in.
        let stolen = try await other.submit(done.json["actions"]?[0])
        #expect(stolen.status == 400)
    }

    @Test(
        "a recorded flow is served as recorded with this server's addresses, in order, unknown members kept",
        .enabled(if: FixtureFiles.available, FixtureFiles.skipMessage))
    func recordedFlow() async throws {
        // The vendor's own representations, one member added that no SDK knows (a literal the decoder keeps).
        let login = try FixtureFiles.text("usernamePassword").replacingOccurrences(
            of: #""type": "authentication-step","#,
            with: #""type": "authentication-step", "teamOwn": {"weight": 1.50},"#)
        let steps = [login, try FixtureFiles.text("pollingStep"), try FixtureFiles.text("pollingStepDone")]
        let server = try await Self.server(adding: [
            #"{"id": "corp", "type": "recorded", "title": "Corp", "user": "approver", "steps": ["#
                + steps.joined(separator: ",") + "]}"
        ])
        defer { Task { await server.stop() } }
        let device = try await AuthenticatorTests.device(server)
        let first = try await device.startAuthenticator("corp")
        #expect(first.text.contains(#""teamOwn":{"weight":1.50}"#), "\(first.text)")
        let base = server.base + "/authn/authenticate/corp/"
        #expect(first.json["actions"]?[0]?["model"]?["href"] == .string(base + "r-1"))
        #expect(
            first.json["links"]?.arrayValue?.allSatisfy {
                $0["href"]?.stringValue?.hasPrefix(base + "not-recorded?at=0%3Alinks%5B") == true
            } == true)
        #expect(first.json["metadata"]?["templateArea"] == "html1")

        // Not reached yet: the last step and the end.
        for early in ["r-2", "finish"] {
            let skipped = try await device.haapi("GET", "/authn/authenticate/corp/" + early)
            #expect(skipped.status == 400, "\(early): \(skipped.text)")
        }
        let link = try #require(first.json["links"]?[0]?["href"]?.stringValue)
        let notRecorded = try await device.haapi("GET", link)
        #expect(notRecorded.status == 400 && notRecorded.text.contains("was not recorded"), "\(notRecorded.text)")
        #expect(notRecorded.text.contains("haapi login") && notRecorded.text.contains("--record"))

        let polling = try await device.submit(first.json["actions"]?[0], [("userName", "x"), ("password", "y")])
        #expect((try AuthenticatorTests.step(polling) as? PollingStep)?.status == .pending)
        let cancel = try #require(polling.json["actions"]?[1]?["model"]?["href"]?.stringValue)
        #expect(cancel == base + "not-recorded?at=1%3Aactions%5B1%5D")
        let refused = try await device.submit(polling.json["actions"]?[1])
        #expect(refused.status == 400 && refused.text.contains("“Cancel” was not recorded"), "\(refused.text)")
        let done = try await device.submit(polling.json["actions"]?[0])
        #expect((try AuthenticatorTests.step(done) as? PollingStep)?.status == .done)
        #expect(done.json["actions"]?[0]?["model"]?["href"] == .string(base + "finish"))
        let signedIn = try await device.submit(done.json["actions"]?[0])
        #expect(try await Self.signedInUser(after: signedIn, device) == "approver", "\(signedIn.text)")
    }

    @Test("a configuration built in code is held to the same rules: no empty form or recording")
    func builtInCode() throws {
        var configuration = try ServerConfiguration.embeddedDefault
        for (authenticator, expected) in [
            (AuthenticatorConfiguration(id: "f", type: .form, title: "F", user: "demouser"), "steps: a form"),
            (AuthenticatorConfiguration(id: "r", type: .recorded, title: "R", user: "demouser"), "steps: a recorded"),
            (
                AuthenticatorConfiguration(
                    id: "r", type: .recorded, title: "R", user: "demouser", recordedSteps: ["not an object"]),
                "must be a JSON object"
            ),
        ] {
            configuration.authenticators = [authenticator]
            #expect(throws: ConfigurationError.self) { try configuration.validate() }
            do { try configuration.validate() } catch let error as ConfigurationError {
                #expect(error.detail.hasPrefix("authenticators[0].") && error.detail.contains(expected), "\(error)")
            }
        }
    }

    @Test(
        "bad authenticator configuration names its place in the file",
        arguments: [
            (
                #"{"id":"f","type":"form","title":"F","user":"u","steps":[{"title":"T","fields":[{"name":"a","type":"text"},{"name":"b","type":"slider"}]}]}"#,
                "authenticators[0].steps[0].fields[1].type: unknown field type \"slider\""
            ),
            (
                #"{"id":"f","type":"form","title":"F","user":"u","steps":[{"title":"T","fields":[{"name":"a","type":"text","accept":"([0-9"}]}]}"#,
                "authenticators[0].steps[0].fields[0].accept: the regular expression"
            ),
            (
                #"{"id":"r","type":"recorded","title":"R","user":"u","steps":[[1,2]]}"#,
                "authenticators[0].steps[0]: a recorded step must be a JSON object"
            ),
            (
                #"{"id":"f","type":"form","title":"F","user":"u","steps":[]}"#,
                "authenticators[0].steps: a form authenticator needs at least one step"
            ),
            (
                #"{"id":"p","type":"polling","title":"P","user":"nobody"}"#,
                "authenticators[0].user: \"nobody\" is not one of the configured users"
            ),
            (
                #"{"id":"p","type":"polling","title":"P","user":"u","clientOperation":"sms"}"#,
                "authenticators[0].clientOperation: unknown client operation"
            ),
            (
                #"{"id":"p","type":"polling","title":"P","user":"u","pollsUntilDone":0}"#,
                "authenticators[0].pollsUntilDone: 1…1000"
            ),
            (#"{"id":"a b","type":"passkeys","title":"P"}"#, "authenticators[0].id: 1 to 64 letters"),
            (#"{"id":"p","type":"passkeys","title":"P","steps":[]}"#, "authenticators[0].steps: \"steps\" is for"),
            (
                #"{"id":"s","type":"form","title":"F","user":"u","steps":[{"title":"T","fields":[{"name":"m","type":"select"}]}]}"#,
                "fields[0].options: a select field needs"
            ),
            (
                #"{"id":"x","type":"passkeys","title":"A"},{"id":"x","type":"passkeys","title":"B"}"#,
                "authenticators[1].id: authenticator \"x\" is defined twice"
            ),
        ])
    func badConfiguration(authenticators: String, expected: String) throws {
        let json =
            #"{"clients":[],"users":[{"username":"u","password":"p"}],"authenticators":["# + authenticators + "]}"
        do {
            _ = try ServerConfiguration.load(json: Data(json.utf8))
            Issue.record("accepted: \(authenticators)")
        } catch let error as ConfigurationError {
            #expect(error.detail.contains(expected), "\(error.detail)")
        }
    }
}

/// The vendor's fixtures as text, for configurations that embed them (`../shared/haapi-fixtures/`).
enum FixtureFiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/haapi-fixtures/ios-haapi-demo-app")

    static var available: Bool { FileManager.default.fileExists(atPath: directory.path) }
    static let skipMessage: Comment = "HAAPI fixtures not found at ../shared/haapi-fixtures/ios-haapi-demo-app"

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name + ".json"), encoding: .utf8)
    }
}
