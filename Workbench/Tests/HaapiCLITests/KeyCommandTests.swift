import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

@Suite("haapi dpop, jwk, jws")
struct KeyCommandTests {
    @Test("dpop creates a 0600 key file once, then reuses it; the proof carries htm, htu, nonce and ath")
    func dpopKeyFile() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let keyPath = directory.appendingPathComponent("device.jwk").path
        let first = try await CLIRunner.run([
            "dpop", "--method", "post", "--url", "https://idp.test/token?x=1#f", "--nonce", "n-1",
            "--access-token", "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU", "--key", keyPath,
        ])
        #expect(first.status == 0)
        #expect(first.stderr.contains("created key file"))
        let permissions = try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)

        let proof = try DPoPProof(parsing: first.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(proof.htm == "POST" && proof.htu == "https://idp.test/token" && proof.nonce == "n-1")
        #expect(proof.ath == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")

        let second = try await CLIRunner.run([
            "dpop", "--method", "GET", "--url", "https://idp.test/a", "--key", keyPath,
        ])
        #expect(second.status == 0 && !second.stderr.contains("created"))
        #expect(
            try DPoPProof(parsing: second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)).thumbprint
                == proof.thumbprint)

        let thumbprint = try await CLIRunner.run(["jwk", "thumbprint", keyPath])
        #expect(thumbprint.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == proof.thumbprint)
    }

    @Test("dpop refuses a relative URL and a key file that is not a private P-256 JWK")
    func dpopErrors() async throws {
        #expect(
            try await CLIRunner.run(["dpop", "--method", "GET", "--url", "/relative", "--key", "/tmp/unused"]).status
                != 0)
        let directory = try CLIRunner.temporaryDirectory()
        let publicOnly = directory.appendingPathComponent("public.jwk")
        try Data(SoftwareP256SigningKey().publicJWK.jsonString.utf8).write(to: publicOnly)
        let result = try await CLIRunner.run([
            "dpop", "--method", "GET", "--url", "https://a.test/", "--key", publicOnly.path,
        ])
        #expect(result.status == 65 && result.stdout.isEmpty && result.stderr.contains("no private key"))
    }

    @Test("jwk thumbprint reads stdin and matches RFC 7638")
    func thumbprintStdin() async throws {
        let jwk =
            #"{"kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA","crv":"P-256"}"#
        let result = try await CLIRunner.run(["jwk", "thumbprint", "-"], stdin: Data(jwk.utf8))
        #expect(result.stdout == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I\n")
        #expect(try await CLIRunner.run(["jwk", "thumbprint", "-"], stdin: Data("{}".utf8)).status == 65)
    }

    @Test("jws sign and verify round-trip; a wrong key or a disallowed algorithm fails")
    func jwsRoundTrip() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let keyPath = directory.appendingPathComponent("k.jwk")
        try Data(SoftwareP256SigningKey().privateJWK.jsonString.utf8).write(to: keyPath)
        let signed = try await CLIRunner.run(
            ["jws", "sign", "--key", keyPath.path, "--header", #"{"kid":"k1"}"#],
            stdin: Data(#"{"hello":"world"}"#.utf8))
        #expect(signed.status == 0)
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try CompactJWS(parsing: token).header["kid"] == "k1")
        let verified = try await CLIRunner.run(["jws", "verify", "--key", keyPath.path, "--alg", "ES256", token])
        #expect(verified.status == 0 && verified.stdout == #"{"hello":"world"}"# + "\n")
        #expect(try await CLIRunner.run(["jws", "verify", "--key", keyPath.path, "--alg", "RS256", token]).status == 1)
        let otherKey = directory.appendingPathComponent("other.jwk")
        try Data(SoftwareP256SigningKey().publicJWK.jsonString.utf8).write(to: otherKey)
        #expect(
            try await CLIRunner.run(["jws", "verify", "--key", otherKey.path, "--alg", "ES256", token]).status == 1)
    }

    @Test("demo without a terminal runs the password path unattended and exits 0")
    func demo() async throws {
        let result = try await CLIRunner.run(["demo"])
        #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
        #expect(result.stdout.contains("unattended"))
        #expect(result.stdout.contains("sub: demouser") && result.stdout.contains("Revoked"))
        #expect(!result.stdout.contains("Password1\n"))
        #expect(!result.stdout.contains("⠋") && !result.stdout.contains("\u{1B}["), "no spinner or colour when piped")
    }

    @Test("demo --answers runs a scripted flow; a script that runs out is a clear failure")
    func demoAnswers() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let script = directory.appendingPathComponent("answers.json")
        try Data(#"[{"choose":"browser"},{"browserLogin":{"userName":"demouser","password":"Password1"}}]"#.utf8).write(
            to: script)
        let browser = try await CLIRunner.run(["demo", "--answers", script.path])
        #expect(browser.status == 0, "\(browser.stdout) \(browser.stderr)")
        let short = directory.appendingPathComponent("short.json")
        try Data(#"[{"choose":"password"}]"#.utf8).write(to: short)
        let stuck = try await CLIRunner.run(["demo", "--answers", short.path])
        #expect(stuck.status == 1)
        #expect(stuck.stdout.contains("no answer"))

        // Choices are numbers in range or whole names: "9" and a fragment of a name are not taken.
        for wrong in ["9", "pass"] {
            let file = directory.appendingPathComponent("wrong-\(wrong).json")
            try Data(#"[{"choose":"\#(wrong)"}]"#.utf8).write(to: file)
            let refused = try await CLIRunner.run(["demo", "--answers", file.path])
            #expect(
                refused.status == 1
                    && (refused.stdout + refused.stderr).contains(
                        "the answer {\"choose\": \"\(wrong)\"} fits no option; the step offers 1) Username and password"
                    ),
                "\(wrong): \(refused.stdout) \(refused.stderr)")
        }
    }
}

@Suite("haapi passkey")
struct PasskeyCommandTests {
    @Test("signup and signin against haapi serve's web-app RP; a second signin uses the same credential")
    func signUpAndIn() async throws {
        let (server, base) = try await LoginAndTokenCommandTests.startServer()
        defer { server.terminate() }
        let store = try CLIRunner.temporaryDirectory().appendingPathComponent("passkeys").path
        let signUp = try await CLIRunner.run(["passkey", "signup", "--rp", base, "--user", "erin", "--store", store])
        #expect(signUp.status == 0, "\(signUp.stderr)")
        #expect(signUp.stdout.contains("Signed up erin"))
        let signIn = try await CLIRunner.run(["passkey", "signin", "--rp", base, "--store", store])
        #expect(signIn.status == 0 && signIn.stdout.contains("Signed in as erin"), "\(signIn.stderr)")
        let empty = try CLIRunner.temporaryDirectory().appendingPathComponent("none").path
        let noKey = try await CLIRunner.run(["passkey", "signin", "--rp", base, "--store", empty])
        #expect(noKey.status == 1 && noKey.stderr.contains("no credential"))
    }

    @Test("register/authenticate print browser JSON; bad options are a clear error")
    func registerAndAuthenticate() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let options = directory.appendingPathComponent("create.json")
        try Data(
            #"{"rp":{"id":"example.com","name":"Example"},"user":{"id":"dXNlcg","name":"user","displayName":"User"},"challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","pubKeyCredParams":[{"type":"public-key","alg":-7}]}"#
                .utf8
        ).write(to: options)
        let store = directory.appendingPathComponent("store").path
        let created = try await CLIRunner.run([
            "passkey", "register", "--options", options.path, "--origin", "https://example.com", "--store", store,
            "--attestation", "packed",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        let json = try JSONParser().parse(created.stdout)
        #expect(json["type"] == "public-key" && json["response"]?["attestationObject"]?.stringValue != nil)
        let request = directory.appendingPathComponent("get.json")
        try Data(#"{"challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","rpId":"example.com"}"#.utf8).write(
            to: request)
        let signed = try await CLIRunner.run([
            "passkey", "authenticate", "--options", request.path, "--origin", "https://example.com", "--store", store,
        ])
        #expect(signed.status == 0)
        let assertion = try JSONParser().parse(signed.stdout)
        #expect(assertion["response"]?["signature"]?.stringValue != nil)
        let wrongOrigin = try await CLIRunner.run([
            "passkey", "authenticate", "--options", request.path, "--origin", "https://evil.example.net", "--store",
            store,
        ])
        #expect(wrongOrigin.status == 1 && wrongOrigin.stderr.contains("not valid for origin"))
        try Data("not json".utf8).write(to: request)
        #expect(
            try await CLIRunner.run([
                "passkey", "authenticate", "--options", request.path, "--origin", "https://example.com", "--store",
                store,
            ]).status == 65)
    }
}
