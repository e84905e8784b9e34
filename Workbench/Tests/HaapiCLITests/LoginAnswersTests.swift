import Foundation
@_spi(Tooling) import HaapiModel
import HaapiServer
import Testing

/// `haapi login` on multi-step logins and its refusals (issue 49 item 8): scripted answers that do not fit
/// list what the step offers; --username/--password name the field a later step still needs; a server's
/// refusal exits 77; `haapi dpop --iat` makes an old proof without waiting.
@Suite("haapi login: answers, multi-step logins, refusals; haapi dpop --iat", .timeLimit(.minutes(3)))
struct LoginAnswersTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/flows")

    static func answers(_ value: JSONValue, in directory: URL) throws -> String {
        let file = directory.appendingPathComponent("answers-\(UUID().uuidString).json")
        try Data(value.serialized().utf8).write(to: file)
        return file.path
    }

    @Test(
        "the bank's login: unattended names the SMS code it cannot answer; scripted answers walk it, consent and BankID included"
    )
    func bankLogin() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let (server, base) = try await RecordReplayTests.serve([
            "--config", Self.examples.appendingPathComponent("bank.json").path,
        ])
        defer { server.terminate() }
        let client = ["--server", base, "--client-id", "bank-ios", "--redirect-uri", "app://bank"]
        let unattended = try await CLIRunner.run(
            ["login"] + client + ["--username", "alice", "--password", "Password1"], limit: 60)
        #expect(unattended.status != 0 && !unattended.timedOut)
        #expect(
            unattended.stderr.contains("asks for “SMS code” (code)")
                && unattended.stderr.contains(#"{"fields": {"code": "…"}}"#), "\(unattended.stderr)")

        let scripted = try await CLIRunner.run(
            ["login"] + client + [
                "--answers",
                try Self.answers(
                    [
                        ["fields": ["userName": "alice", "password": "Password1"]], ["fields": ["code": "123456"]],
                        ["choose": "bankid"], ["action": "Accept"],
                    ], in: directory),
            ], limit: 60)
        #expect(scripted.status == 0 && scripted.stdout.contains("token_type: DPoP"), "\(scripted.stderr)")
    }

    @Test("an answer that fits nothing lists what the step offers")
    func answersThatDoNotFit() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let (server, base) = try await RecordReplayTests.serve()
        defer { server.terminate() }
        let client = ["--server", base, "--client-id", "haapi-demo"]
        let choice = try await CLIRunner.run(
            ["login"] + client + ["--answers", try Self.answers([["choose": "fingerprint"]], in: directory)], limit: 60)
        #expect(choice.status != 0 && !choice.timedOut)
        #expect(
            choice.stderr.contains(
                #"the answer {"choose": "fingerprint"} fits no option; the step offers 1) Username and password (password), 2) Code by e-mail (email)"#
            ),
            "\(choice.stderr)")
        let field = try await CLIRunner.run(
            ["login"] + client + [
                "--answers",
                try Self.answers([["choose": "password"], ["fields": ["user": "demouser"]]], in: directory),
            ], limit: 60)
        #expect(
            field.stderr.contains(#"the answer's field "user" is not in the form"#)
                && field.stderr.contains("userName (Username), 2) password (Password)"), "\(field.stderr)")
    }

    @Test("a redirect URI, a scope or a client the server refuses exits 77, unattended and scripted")
    func refusalsExit77() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let (server, base) = try await RecordReplayTests.serve()
        defer { server.terminate() }
        for (extra, words) in [
            (["--redirect-uri", "app://elsewhere"], "redirect_uri is not registered"),
            (["--scope", "openid admin"], "scope admin is not allowed"),
            (["--client-id", "nobody"], "does not know this client"),
        ] {
            let arguments = ["login", "--server", base, "--client-id", "haapi-demo"]
            let unattended = try await CLIRunner.run(
                arguments + extra + ["--username", "demouser", "--password", "Password1"], limit: 60)
            #expect(unattended.status == 77 && unattended.stderr.contains(words), "\(extra): \(unattended.stderr)")
            let scripted = try await CLIRunner.run(
                arguments + extra + ["--answers", try Self.answers([], in: directory)], limit: 60)
            #expect(scripted.status == 77 && scripted.stderr.contains(words), "\(extra): \(scripted.stderr)")
        }
    }

    @Test("haapi dpop --iat makes a proof that old (or that far ahead), and the server refuses it for its iat")
    func staleProof() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let key = directory.appendingPathComponent("dpop.jwk").path
        for offset in [-600, 600] {
            let before = Int(Date().timeIntervalSince1970)
            let result = try await CLIRunner.run([
                "dpop", "--method", "POST", "--url", "http://localhost:1/oauth/token", "--key", key, "--iat",
                "\(offset)",
            ])
            let after = Int(Date().timeIntervalSince1970)
            let payload = try #require(result.stdout.split(separator: ".").dropFirst().first)
            let bytes = try #require(Base64URL.decode(String(payload)))
            let claims = try JSONParser().parse(Data(bytes))
            let iat = try #require(claims["iat"]?.numberValue?.intValue)
            #expect((before + offset...after + offset).contains(iat), "\(offset): \(iat)")
        }
        let tooFar = try await CLIRunner.run([
            "dpop", "--method", "GET", "--url", "http://localhost:1/", "--key", key, "--iat", "99999999999",
        ])
        #expect(tooFar.status == 64 && tooFar.stderr.contains("--iat"))
    }
}
