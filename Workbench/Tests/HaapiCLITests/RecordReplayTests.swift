import ChildProcesses
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiServer
import Testing

@testable import HaapiCLI

/// `haapi login --record FILE` and `haapi serve --config FILE` with the recording (issue 39 item 4, issue 49 item 4).
@Suite("Recorded logins: recorded by haapi login, replayed by haapi serve", .timeLimit(.minutes(5)))
struct RecordReplayTests {
    static func serve(_ arguments: [String] = []) async throws -> (ChildProcess, String) {
        let (process, output) = try CLIRunner.start(["serve", "--port", "0"] + arguments)
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") }).description
        return (process, base)
    }

    static func login(_ base: String, recordingTo file: URL? = nil) async throws -> CLIRunner.Result {
        try await CLIRunner.run(
            [
                "login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password",
                ServerConfiguration.demoPassword,
            ] + (file.map { ["--record", $0.path] } ?? []), limit: 60)
    }

    /// `haapi login` answering from a script (`--answers`), recording when `file` is given.
    static func login(
        _ base: String, answers: [JSONValue], recordingTo file: URL? = nil, in directory: URL
    ) async throws -> CLIRunner.Result {
        let script = directory.appendingPathComponent("answers-\(UUID().uuidString).json")
        try Data(JSONValue.array(answers).serialized().utf8).write(to: script)
        return try await CLIRunner.run(
            ["login", "--server", base, "--client-id", "haapi-demo", "--answers", script.path]
                + (file.map { ["--record", $0.path] } ?? []), limit: 60)
    }

    /// The recorded authenticator of a recording file.
    static func recording(_ file: URL) throws -> JSONValue {
        let configuration = try JSONParser().parse(try Data(contentsOf: file))
        return try #require(configuration["authenticators"]?.arrayValue?.first { $0["type"] == "recorded" })
    }

    /// Each step as the app sees its shape: type, the kinds of its actions (nested ones too), its field names.
    static func shapes(_ recording: JSONValue) -> [String] {
        func kinds(_ actions: [JSONValue]) -> [String] {
            actions.flatMap { action -> [String] in
                let model = action["model"]
                let inner = ["options", "continueActions", "errorActions"].flatMap { model?[$0]?.arrayValue ?? [] }
                return [action["kind"]?.stringValue ?? "?"] + kinds(inner)
            }
        }
        return (recording["steps"]?.arrayValue ?? []).map { node in
            let step = node["representation"] ?? node
            let actions = step["actions"]?.arrayValue ?? []
            let fields = actions.flatMap { $0["model"]?["fields"]?.arrayValue ?? [] }.compactMap {
                $0["name"]?.stringValue
            }
            return "\(step["type"]?.stringValue ?? "?") \(kinds(actions)) \(fields)"
        }
    }

    static func hrefs(in value: JSONValue) -> [String] {
        switch value {
        case .object(let object):
            return object.flatMap { key, member in
                key == "href" ? [member.stringValue ?? ""] : hrefs(in: member)
            }
        case .array(let items): return items.flatMap(hrefs(in:))
        default: return []
        }
    }

    @Test(
        "the dev server's default login, recorded: the file starts haapi serve as it is, and a login through it gets tokens"
    )
    func recordAndReplay() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let first = directory.appendingPathComponent("first.json")
        let (serverA, baseA) = try await Self.serve()
        defer { serverA.terminate() }
        let recorded = try await Self.login(baseA, recordingTo: first)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stderr.contains("4 new steps recorded, 4 in"), "\(recorded.stderr)")
        let text = try String(contentsOf: first, encoding: .utf8)
        let recording = try Self.recording(first)
        #expect(recording["user"] == "demouser")
        // Bodies only, and nothing of this login in them.
        for secret in [ServerConfiguration.demoPassword, "_resume_nonce", "\"code\"", "access_token", "Session-Id"] {
            #expect(!text.contains(secret), "\(secret) in the recording")
        }
        let addresses = Self.hrefs(in: recording)
        #expect(!addresses.isEmpty && addresses.allSatisfy { !$0.contains("?") && !$0.contains("#") }, "\(addresses)")

        // The file is a whole configuration: a second server starts from it as it is.
        let (serverB, baseB) = try await Self.serve(["--config", first.path])
        defer { serverB.terminate() }
        let second = directory.appendingPathComponent("second.json")
        let replayed = try await Self.login(baseB, recordingTo: second)
        #expect(replayed.status == 0 && replayed.stdout.contains("token_type: DPoP"), "\(replayed.stderr)")
        // The second server adds its own redirection into the recorded authenticator and out of it.
        let outer = Self.shapes(try Self.recording(second))
        #expect(outer.count == Self.shapes(recording).count + 2)
        #expect(Array(outer.dropFirst().dropLast()) == Self.shapes(recording), "\(outer)")
    }

    @Test(
        "a second login recorded into the same file adds its path as a branch; an option nobody recorded says how to record it"
    )
    func branches() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("branches.json")
        let (server, base) = try await Self.serve()
        defer { server.terminate() }
        #expect(try await Self.login(base, recordingTo: file).status == 0)
        let otp = try await Self.login(
            base, answers: [["choose": "otp"], ["fields": ["otp": "123456"]]], recordingTo: file, in: directory)
        #expect(otp.status == 0, "\(otp.stderr)")
        #expect(otp.stderr.contains("2 new steps recorded, 6 in"), "\(otp.stderr)")
        // The selector (step 1) leads two ways now; the first recording's steps are where they were.
        let steps = try #require(try Self.recording(file)["steps"]?.arrayValue)
        #expect(steps[1]["next"]?.objectValue?.count == 2, "\(steps[1])")
        // Recording the same path again adds nothing.
        let again = try await Self.login(base, recordingTo: file)
        #expect(again.status == 0 && again.stderr.contains("0 new steps recorded, 6 in"), "\(again.stderr)")

        let (replay, replayBase) = try await Self.serve(["--config", file.path])
        defer { replay.terminate() }
        #expect(try await Self.login(replayBase).status == 0)
        let code = try await Self.login(
            replayBase, answers: [["choose": "One-time code"], ["fields": ["otp": "123456"]]], in: directory)
        #expect(code.status == 0, "\(code.stdout)\n\(code.stderr)")
        let email = try await Self.login(
            replayBase, answers: [["choose": "Code by e-mail"], ["fields": ["userName": "demouser"]]], in: directory)
        #expect(email.status != 0 && !email.timedOut)
        #expect(email.stderr.contains("“Code by e-mail” was not recorded"), "\(email.stdout)\n\(email.stderr)")
        #expect(email.stderr.contains("haapi login") && email.stderr.contains("--record"), "\(email.stderr)")
    }

    @Test(
        "BankID and Encap recordings replay to tokens; their one-time values are placeholders of the same shape",
        arguments: ["bankid", "encap"])
    func appLaunches(_ kind: String) async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let file = directory.appendingPathComponent("\(kind).json")
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/flows")
        // BankID from the default configuration (a choice), Encap from its example (straight to it).
        let (server, base) = try await Self.serve(
            kind == "encap" ? ["--config", examples.appendingPathComponent("encap.json").path] : [])
        defer { server.terminate() }
        let answers: [JSONValue] = kind == "bankid" ? [["choose": "bankid"]] : []
        let recorded = try await Self.login(base, answers: answers, recordingTo: file, in: directory)
        #expect(recorded.status == 0 && !recorded.timedOut, "\(recorded.stdout)\n\(recorded.stderr)")
        #expect(recorded.stderr.contains("Open this link on a device with the app"), "a prompt, not a silent wait")
        // Encap's example is done at its first poll; BankID waits, and says so.
        #expect(kind == "encap" || recorded.stderr.contains("Waiting…"), "\(recorded.stderr)")
        let text = try String(contentsOf: file, encoding: .utf8)
        if kind == "bankid" {
            #expect(text.contains(#""autoStartToken": "00000000-0000-0000-0000-000000000000""#), "\(text)")
            #expect(text.contains("bankid:///?autostarttoken=00000000-0000-0000-0000-000000000000&redirect=null"))
        } else {
            #expect(text.contains(#""activationCode": "00000000""#) && text.contains("encap://activate?code=00000000"))
        }
        // A wait answered pending more than once is one step that knows how often.
        #expect(kind == "encap" || text.contains(#""polls": 2"#), "\(text)")

        let (replay, replayBase) = try await Self.serve(["--config", file.path])
        defer { replay.terminate() }
        let replayed = try await Self.login(
            replayBase, answers: kind == "bankid" ? [["choose": "BankID"]] : [], in: directory)
        #expect(
            replayed.status == 0 && replayed.stdout.contains("token_type: DPoP"),
            "\(replayed.stdout)\n\(replayed.stderr)")
        #expect(replayed.stderr.contains("Open this link on a device with the app"))
        #expect(kind == "encap" || replayed.stderr.contains("Waiting…"), "\(replayed.stderr)")
    }

    /// Waiting and app-launch shapes a server may send: `haapi login` ends each with its reason, or goes on,
    /// never waits without a word.
    static let shapes: [(name: String, step: String, expected: String)] = [
        (
            "app launch without a continue action or another way",
            #"{"type":"authentication-step","actions":[{"template":"client-operation","kind":"login","model":{"name":"bankid","arguments":{"href":"bankid:///?autostarttoken=0&redirect=null","autoStartToken":"0"}}}]}"#,
            "offers no way to go on"
        ),
        (
            "app launch with only another-device way (not recorded)",
            #"{"type":"authentication-step","actions":[{"template":"client-operation","kind":"login","model":{"name":"bankid","arguments":{"href":"bankid:///?autostarttoken=0&redirect=null","autoStartToken":"0"},"errorActions":[{"template":"form","kind":"bankid-other-device","title":"Use BankID on another device","model":{"href":"/elsewhere","method":"GET"}}]}}]}"#,
            "“Use BankID on another device” was not recorded"
        ),
        (
            "a wait without a poll action",
            #"{"type":"polling-step","properties":{"status":"pending"},"actions":[]}"#,
            "no poll action"
        ),
        (
            "a finished wait without an action",
            #"{"type":"polling-step","properties":{"status":"done"},"actions":[]}"#,
            "offers no way on"
        ),
        (
            "a failed wait",
            #"{"type":"polling-step","properties":{"status":"failed"},"messages":[{"text":"Nobody answered in time"}],"actions":[]}"#,
            "Nobody answered in time"
        ),
    ]

    @Test("every waiting and app-launch shape ends with its reason or goes on; none waits without a word")
    func noSilentWaits() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        for shape in Self.shapes {
            let file = directory.appendingPathComponent("shape.json")
            let configuration = """
                {"clients":[{"id":"haapi-demo","attestation":"software","tokenBoundCodes":true,"dpopNonce":true,"redirectURIs":["app://haapi"],"scopes":["openid","profile"]}],
                 "users":[{"username":"demouser","passwordHash":"\(ServerConfiguration.demoPasswordHash)"}],
                 "authenticators":[{"id":"shape","type":"recorded","title":"Shape","user":"demouser","steps":[\(shape.step)]}]}
                """
            try Data(configuration.utf8).write(to: file)
            let (server, base) = try await Self.serve(["--config", file.path])
            let result = try await Self.login(base, answers: [], in: directory)
            server.terminate()
            #expect(!result.timedOut && result.status != 0, "\(shape.name): \(result.stdout)\n\(result.stderr)")
            #expect(
                (result.stdout + result.stderr).contains(shape.expected),
                "\(shape.name): \(result.stdout)\n\(result.stderr)")
        }
    }

    @Test("what the user sent is not in the recording; what the server offered and sent back stays")
    func scrubbing() async throws {
        let recording = FlowRecording()
        let url = try #require(URL(string: "https://login.example.com/authn/authenticate/corp"))
        func step(_ json: String) throws -> HTTPResponse {
            HTTPResponse(
                statusCode: 200, headers: ["content-type": "application/vnd.auth+json"], body: Data(json.utf8), url: url
            )
        }
        func post(_ form: String, to path: String) -> HTTPRequest {
            HTTPRequest(
                method: "POST", url: URL(string: "https://login.example.com" + path) ?? url,
                headers: [
                    ("Accept", "application/vnd.auth+json"), ("Content-Type", "application/x-www-form-urlencoded"),
                ], body: Data(form.utf8))
        }
        let authorize = HTTPRequest(
            method: "GET", url: try #require(URL(string: "https://login.example.com/oauth/authorize?client_id=my-app")),
            headers: [("Accept", "application/vnd.auth+json")])
        await recording.note(
            authorize,
            try step(
                #"{"type":"authentication-step","actions":[{"template":"form","kind":"login","model":{"href":"/corp?_resume_nonce=n1#x","method":"POST","fields":[{"name":"flowId","type":"hidden","value":"flow-42"},{"name":"userName","type":"username"},{"name":"password","type":"password","value":"hunter22"}]}}],"messages":[{"text":"Welcome to my-app"}]}"#
            ))
        await recording.note(
            post("flowId=flow-42&userName=alice.smith&password=s3cret-pass", to: "/corp"),
            try step(
                #"{"type":"authentication-step","properties":{"code":"c-1","session_state":"s","kept":"yes"},"actions":[{"template":"form","kind":"login","model":{"href":"/corp/otp","method":"POST","fields":[{"name":"user","type":"text","value":"alice.smith"}]}}],"messages":[{"text":"A code was sent to alice.smith's phone"}]}"#
            ))
        await recording.note(
            post("user=alice.smith&otp=123456", to: "/corp/otp"),
            try step(#"{"type":"oauth-authorization-response","properties":{"code":"the-code"}}"#))
        let path = await recording.path()
        let text = JSONValue.array(path.map(\.representation)).serialized()
        for gone in ["alice.smith", "s3cret-pass", "hunter22", "_resume_nonce", "c-1", "session_state", "the-code"] {
            #expect(!text.contains(gone), "\(gone) in \(text)")
        }
        let steps = path.map(\.representation)
        #expect(steps.count == 2)
        #expect(path.map(\.followed) == ["actions[0]", "actions[0]"] && path.last?.finishes == true)
        #expect(steps[0]["actions"]?[0]?["model"]?["href"] == "/corp")
        // Offered by the server and sent back: not typed, kept. The app's own client id in a text: kept.
        #expect(text.contains("flow-42") && text.contains("Welcome to my-app"))
        #expect(steps[1]["properties"]?["kept"] == "yes")
        #expect(steps[1]["messages"]?[0]?["text"] == "A code was sent to …'s phone")
        #expect(steps[1]["actions"]?[0]?["model"]?["fields"]?[0]?["value"] == nil)
    }
}
