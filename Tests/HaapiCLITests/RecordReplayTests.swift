import Foundation
import HaapiDriver
import HaapiModel
import HaapiServer
import Testing

@testable import HaapiCLI

/// `haapi login --record FILE` and `haapi serve --config` with the recording (issue 39 item 4).
@Suite("Recorded logins: recorded by haapi login, replayed by haapi serve")
struct RecordReplayTests {
    static func serve(_ arguments: [String] = []) async throws -> (Process, String) {
        let (process, output) = try CLIRunner.start(["serve", "--port", "0"] + arguments)
        let summary = try await CLIRunner.waitForLine(containing: "swift-haapi dev server on", in: output)
        let base = try #require(summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") }).description
        return (process, base)
    }

    static func login(_ base: String, recordingTo file: URL) async throws -> CLIRunner.Result {
        try await CLIRunner.run(
            [
                "login", "--server", base, "--client-id", "haapi-demo", "--username", "demouser", "--password",
                ServerConfiguration.demoPassword, "--record", file.path,
            ])
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
        return (recording["steps"]?.arrayValue ?? []).map { step in
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
        "the dev server's default login, recorded and replayed by a second dev server: the same steps, fields and kinds"
    )
    func recordAndReplay() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let first = directory.appendingPathComponent("first.json")
        let (serverA, baseA) = try await Self.serve()
        defer { serverA.terminate() }
        let recorded = try await Self.login(baseA, recordingTo: first)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stderr.contains("4 steps recorded"), "\(recorded.stderr)")
        let text = try String(contentsOf: first, encoding: .utf8)
        let recording = try JSONParser().parse(text)
        #expect(recording["type"] == "recorded" && recording["user"] == "demouser")
        // Bodies only, and nothing of this login in them.
        for secret in [ServerConfiguration.demoPassword, "_resume_nonce", "\"code\"", "access_token", "Session-Id"] {
            #expect(!text.contains(secret), "\(secret) in the recording")
        }
        let addresses = Self.hrefs(in: recording)
        #expect(!addresses.isEmpty && addresses.allSatisfy { !$0.contains("?") && !$0.contains("#") }, "\(addresses)")

        // The second server offers the recording as its only authenticator.
        var configuration = try JSONParser().parse(ServerConfiguration.defaultJSON).objectValue ?? JSONObject()
        configuration["authenticators"] = [recording]
        configuration["logins"] = nil
        configuration["clients"] = .array(
            (configuration["clients"]?.arrayValue ?? []).map { client in
                guard case .object(var object) = client else { return client }
                object["login"] = nil
                return .object(object)
            })
        let file = directory.appendingPathComponent("replay.json")
        try Data(JSONValue.object(configuration).serialized().utf8).write(to: file)
        let (serverB, baseB) = try await Self.serve(["--config", file.path])
        defer { serverB.terminate() }
        let second = directory.appendingPathComponent("second.json")
        let replayed = try await Self.login(baseB, recordingTo: second)
        #expect(replayed.status == 0, "\(replayed.stderr)")
        let again = try JSONParser().parse(try Data(contentsOf: second))
        // The second server adds its own redirection into the recorded authenticator and out of it.
        let outer = Self.shapes(again)
        #expect(outer.count == Self.shapes(recording).count + 2)
        #expect(Array(outer.dropFirst().dropLast()) == Self.shapes(recording), "\(outer)")
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
        func post(_ form: String) -> HTTPRequest {
            HTTPRequest(
                method: "POST", url: url,
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
            post("flowId=flow-42&userName=alice.smith&password=s3cret-pass"),
            try step(
                #"{"type":"authentication-step","properties":{"code":"c-1","session_state":"s","kept":"yes"},"actions":[{"template":"form","kind":"login","model":{"href":"/corp/otp","method":"POST","fields":[{"name":"user","type":"text","value":"alice.smith"}]}}],"messages":[{"text":"A code was sent to alice.smith's phone"}]}"#
            ))
        await recording.note(
            post("otp=123456"),
            try step(#"{"type":"oauth-authorization-response","properties":{"code":"the-code"}}"#))
        let authenticator = try #require(await recording.authenticator(id: "r", title: "R", user: "demouser"))
        let text = authenticator.serialized()
        for gone in ["alice.smith", "s3cret-pass", "hunter22", "_resume_nonce", "c-1", "session_state", "the-code"] {
            #expect(!text.contains(gone), "\(gone) in \(text)")
        }
        let steps = try #require(authenticator["steps"]?.arrayValue)
        #expect(steps.count == 2)
        #expect(steps[0]["actions"]?[0]?["model"]?["href"] == "/corp")
        // Offered by the server and sent back: not typed, kept. The app's own client id in a text: kept.
        #expect(text.contains("flow-42") && text.contains("Welcome to my-app"))
        #expect(steps[1]["properties"]?["kept"] == "yes")
        #expect(steps[1]["messages"]?[0]?["text"] == "A code was sent to …'s phone")
        #expect(steps[1]["actions"]?[0]?["model"]?["fields"]?[0]?["value"] == nil)
    }
}
