import Foundation
import HaapiCLI
@_spi(Tooling) import HaapiModel
import Testing

@Suite("haapi inspect")
struct InspectTests {
    static let fixtures: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/haapi-fixtures/ios-haapi-demo-app")
    static var fixturesAvailable: Bool { FileManager.default.fileExists(atPath: fixtures.path) }

    static func report(_ json: String) async throws -> JSONValue {
        InspectReport.json(for: try HaapiDecoder().decode(Data(json.utf8)))
    }

    @Test("the JSON report of a step: type, step name, actions with fields, options and operations, links, messages")
    func stepReport() async throws {
        let report = try await Self.report(
            """
            {"type":"authentication-step","messages":[{"text":"Hi","classList":["info"]}],"links":[{"href":"/f","rel":"forgot-password","title":"F"}],
             "actions":[{"template":"selector","kind":"device-selector","title":"Pick","model":{"options":[
               {"template":"form","kind":"login","title":"sms","model":{"href":"/s","method":"POST","fields":[{"name":"d","type":"hidden","value":"1"}]}}]}},
               {"template":"client-operation","kind":"login","model":{"name":"bankid","arguments":{},"continueActions":[]}},
               {"template":"client-operation","kind":"login","model":{"name":"bankid","arguments":{},"continueActions":[]}}]}
            """)
        #expect(report["representationType"] == "authentication-step")
        #expect(report["step"] == "InteractiveFormStep")
        #expect(
            report["actions"] == [
                [
                    "template": "selector", "kind": "device-selector", "title": "Pick",
                    "options": [
                        [
                            "template": "form", "kind": "login", "title": "sms",
                            "fields": [["name": "d", "type": "hidden"]],
                        ]
                    ],
                ],
                ["template": "client-operation", "kind": "login", "clientOperation": "bankid"],
                ["template": "client-operation", "kind": "login", "clientOperation": "bankid"],
            ])
        #expect(report["links"] == [["rel": "forgot-password", "href": "/f"]])
        #expect(report["messages"] == [["text": "Hi", "classList": ["info"]]])
        #expect(report["invalidFields"] == nil && report["pollingStatus"] == nil)
    }

    @Test("polling steps report pollingStatus; client-operation steps report their Swift type")
    func pollingAndOperations() async throws {
        #expect(
            try await Self.report(#"{"type":"polling-step","properties":{"status":"done"}}"#)["pollingStatus"] == "done"
        )
        let webauthn = try await Self.report(
            """
            {"type":"authentication-step","actions":[{"template":"client-operation","kind":"device-authn","model":{"name":"webauthn-authentication",
             "arguments":{"credentialRequestOptions":{"publicKey":{"challenge":"AAEC"}}},"continueActions":[]}}]}
            """)
        #expect(webauthn["step"] == "WebAuthnAuthenticationClientOperationStep")
    }

    @Test("problems report their type URI, class name and invalid fields")
    func problemReport() async throws {
        let report = try await Self.report(
            #"{"type":"https://curity.se/problems/invalid-input","title":"Oops","invalidFields":[{"name":"u","reason":"missing","detail":"Needed"}]}"#
        )
        #expect(report["representationType"] == "https://curity.se/problems/invalid-input")
        #expect(report["step"] == "InvalidInputProblem")
        #expect(report["invalidFields"] == [["name": "u", "reason": "missing", "detail": "Needed"]])
        let plain = try await Self.report(#"{"type":"https://curity.se/problems/unexpected"}"#)
        #expect(plain["step"] == "Problem")
        #expect(plain["invalidFields"] == [])
    }

    @Test(
        "the binary prints one JSON object and exits 0",
        .enabled(if: fixturesAvailable, "fixtures not found beside the checkout"))
    func binarySuccess() async throws {
        let result = try await CLIRunner.run([
            "inspect", "--json", Self.fixtures.appendingPathComponent("selectAuthentication.json").path,
        ])
        #expect(result.status == 0)
        let report = try JSONParser().parse(result.stdout)
        #expect(report["step"] == "AuthenticatorSelectorStep")
        #expect(report["actions"]?.arrayValue?.first?["options"]?.arrayValue?.count == 40)
        #expect(result.stdout.split(separator: "\n").count == 1)
    }

    @Test("malformed input: one line naming the path on stderr, nothing on stdout, exit 65")
    func binaryMalformed() async throws {
        let body =
            #"{"type":"authentication-step","actions":[{"template":"form","kind":"login","model":{"href":"/x","method":"POST","fields":[{"name":"a","type":"text"},{"name":"b","type":"text"},{"name":2,"type":"text"}]}}]}"#
        let result = try await CLIRunner.run(["inspect", "--json", "-"], stdin: Data(body.utf8))
        #expect(result.status == 65)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(result.stderr.contains("actions[0].model.fields[2].name"))
        let garbage = try await CLIRunner.run(["inspect", "--json", "-"], stdin: Data([0x7B, 0xFF]))
        #expect(garbage.status == 65 && garbage.stdout.isEmpty && garbage.stderr.contains("invalid UTF-8 at byte 1"))
    }
}
