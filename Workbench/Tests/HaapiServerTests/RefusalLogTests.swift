import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import HaapiRules
import Testing

@testable import HaapiServer

/// Lines a test server writes, kept for the test to read.
final class CapturedLines: Sendable {
    private let lines = LockedValue([String]())

    var all: [String] { lines.get() }

    func options(format: RequestLogOptions.Format = .text, verbose: Bool = false) -> RequestLogOptions {
        RequestLogOptions(format: format, verbose: verbose, write: { line in self.lines.withLock { $0.append(line) } })
    }

    /// The one line written since `mark` that names `rule`.
    func line(after mark: Int, rule: Rule, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let found = all.dropFirst(mark).filter { $0.contains("[\(rule.id)]") }
        #expect(found.count == 1, "\(all.dropFirst(mark))", sourceLocation: sourceLocation)
        return found.first ?? ""
    }
}

/// Every refused request is one line on the server's output: when, what, which client, which rule, what
/// was expected and what came, and the fix; never a secret. The response names the rule too.
@Suite("Refusal lines: the rule, what was expected and what came, the fix; no secret")
struct RefusalLogTests {
    typealias D = DPoPTests

    @Test("htu, iat, nonce and redirect_uri refusals each print one line with both values and the fix")
    func linesNameBothSides() async throws {
        let lines = CapturedLines()
        let server = try await TestServer(requestLog: lines.options())
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let authorize = device.url("/oauth/authorize")
        let port = server.running.port

        // htu naming the server by another name than the issuer's.
        var mark = lines.all.count
        let otherName = "http://localhost:\(port)/oauth/authorize"
        let wrongHost = try await D.authorize(
            device, proofs: [try D.sign(D.claims(device, url: otherName), key: device.key)])
        #expect(wrongHost.status == 401)
        #expect(
            wrongHost.json["error_description"]?.stringValue == "htu does not match the request URL [dpop.htu-mismatch]"
        )
        let htu = lines.line(after: mark, rule: .dpopHtuMismatch)
        #expect(htu.contains("GET /oauth/authorize 401 client=haapi-demo"), "\(htu)")
        #expect(htu.contains("htu: expected \(authorize), got \(otherName);"), "\(htu)")
        #expect(htu.contains("fix: \(Rule.dpopHtuMismatch.entry.fix)"), "\(htu)")

        // iat 75 seconds old, against the ±60 s window.
        mark = lines.all.count
        _ = try await D.authorize(device, proofs: [try D.sign(D.claims(device, iat: Date() - 75), key: device.key)])
        // 75 s, and the time the request took on a busy machine (the proof's iat is in whole seconds).
        let iat = lines.line(after: mark, rule: .dpopIatWindow)
        let seconds = try #require(iat.firstMatch(of: /iat: (\d+) s before the server's clock, window ±60 s/), "\(iat)")
        #expect((75...90).contains(Int(seconds.output.1) ?? 0), "\(iat)")

        // A nonce the server never issued.
        mark = lines.all.count
        let invented = try await D.authorize(
            device, proofs: [try D.sign(D.claims(device, nonce: .some("made-up")), key: device.key)])
        #expect(invented.json["error"]?.stringValue == "use_dpop_nonce")
        #expect(
            lines.line(after: mark, rule: .dpopNonceUnknown).contains(
                "nonce: unknown, the current one was sent in DPoP-Nonce"))

        // A redirect URI the client did not register.
        mark = lines.all.count
        let other = try await device.authorize(redirectURI: "app://other")
        #expect(
            other.json["error_description"]?.stringValue?.hasSuffix("[oauth.redirect-uri]") == true, "\(other.text)")
        let redirect = lines.line(after: mark, rule: .redirectURI)
        #expect(
            redirect.contains("redirect_uri: app://other is not registered for haapi-demo (registered: app://haapi"),
            "\(redirect)")
    }

    /// A client's iat can be any Int; the refusal's words must not trap converting the huge offset.
    @Test("a proof dated at Int.max or Int.min seconds is refused with its line, and the server keeps answering")
    func extremeIat() async throws {
        let lines = CapturedLines()
        let server = try await TestServer(requestLog: lines.options())
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        for iat in [Int.max, Int.min] {
            var claims = D.claims(device)
            claims["iat"] = .number(JSONNumber(iat))
            let refused = try await D.authorize(device, proofs: [try D.sign(claims, key: device.key)])
            #expect(refused.status == 401, "\(refused.text)")
            #expect(refused.json["error_description"]?.stringValue?.hasSuffix("[dpop.iat-window]") == true)
        }
        #expect(lines.all.filter { $0.contains("[dpop.iat-window] iat: 1000000000000 s") }.count == 2, "\(lines.all)")
        #expect(try await RawHTTP.send("GET", server.base + "/health").status == 200)
    }

    @Test("no token, code, password, client secret, proof signature or cookie reaches a line")
    func noSecrets() async throws {
        let lines = CapturedLines()
        let server = try await TestServer(requestLog: lines.options(verbose: true))
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let token = try #require(device.haapiToken)
        // A wrong password, a wrong client secret, a replayed proof, a code redeemed twice, a cookie.
        let login = try await device.startAuthenticator("password")
        _ = try await device.submit(
            login.json["actions"]?[0], [("userName", "demouser"), ("password", "Wrong-Secret-9")])
        _ = try await RawHTTP.form(
            device.url("/oauth/token"), [("grant_type", "client_credentials")],
            headers: [RawHTTP.basic("secret-basic", "not-the-basic-secret"), ("Cookie", "session=cookie-value-123")])
        let proof = try device.proof("GET", device.url("/oauth/authorize"), accessToken: token)
        _ = try await D.authorize(device, proofs: [proof])
        _ = try await D.authorize(device, proofs: [proof])
        let code = try await device.passwordLogin()
        _ = try await device.redeem(code: code)
        _ = try await device.redeem(code: code)
        let text = lines.all.joined(separator: "\n")
        #expect(lines.all.contains { $0.contains("[haapi.incorrect-credentials]") }, "\(text)")
        #expect(lines.all.contains { $0.contains("[oauth.client-authentication]") }, "\(text)")
        #expect(lines.all.contains { $0.contains("[dpop.replay]") }, "\(text)")
        #expect(lines.all.contains { $0.contains("[oauth.code-reused]") }, "\(text)")
        let signature = String(proof.split(separator: ".").last ?? "")
        for secret in [
            "Wrong-Secret-9", "Password1", "not-the-basic-secret", "cookie-value-123", token,
            String(token.dropFirst(6)),
            signature, code, String(code.dropFirst(6)),
        ] {
            #expect(!text.contains(secret), "a line holds \(secret.prefix(8))…")
        }
        // A token appears as its first six characters and its length at most.
        #expect(text.contains("\(code.prefix(6))…(\(code.count) chars)"))
        // Verbose: accepted requests have their short line too.
        #expect(lines.all.contains { $0.contains("POST /oauth/token 200 client=haapi-demo (") })
    }

    @Test("an Authentication Hub refusal names the hub's errorCode and message")
    func authHubLine() async throws {
        let lines = CapturedLines()
        let server = try await TestServer(requestLog: lines.options())
        defer { Task { await server.stop() } }
        let refused = try await RawHTTP.send("GET", server.base + "/default/auth/v1/BrandingSettings")
        #expect(refused.status == 401, "\(refused.text)")
        let line = lines.line(after: 0, rule: .authHubRefused)
        #expect(line.contains("client=- [authhub.refused] errorCode 8910004: Invalid token; fix: "), "\(line)")
    }

    @Test("--log-format json: one object a line with the same members; a newline sent by a client stays inside")
    func jsonLines() async throws {
        let lines = CapturedLines()
        let server = try await TestServer(requestLog: lines.options(format: .json))
        defer { Task { await server.stop() } }
        _ = try await RawHTTP.form(
            server.base + "/oauth/token", [("grant_type", "evil\n2026-01-01 forged line"), ("client_id", "a\nb")])
        let all = lines.all
        #expect(all.count == 1, "\(all)")
        let object = try JSONParser().parse(try #require(all.first))
        #expect(object["rule"]?.stringValue == "oauth.grant-unsupported")
        #expect(object["method"]?.stringValue == "POST" && object["path"]?.stringValue == "/oauth/token")
        #expect(object["status"]?.numberValue?.intValue == 400)
        #expect(object["detail"]?.stringValue?.contains("got evil") == true)
        #expect(object["fix"]?.stringValue == Rule.grantUnsupported.entry.fix)
        #expect(object["time"]?.stringValue?.hasSuffix("Z") == true)
        // In text, a control character a client sent cannot start a line of its own.
        #expect(RequestLogLine.clean("a\nb\r\u{1B}c") == "a b  c")
    }
}

/// The nonce challenge of a client's first proof is how DPoP nonces work: a line only with --verbose (issue 51
/// item 6), while every other refusal keeps its line.
@Suite("Refusal lines: the nonce challenge only when verbose")
struct NonceChallengeLineTests {
    @Test("a login's nonce challenges are in the journal but print no line unless verbose; other refusals still do")
    func nonceChallengeQuiet() async throws {
        for verbose in [false, true] {
            let lines = CapturedLines()
            let server = try await TestServer(requestLog: lines.options(verbose: verbose))
            let device = HaapiDevice(base: server.base)
            try await device.obtainHaapiToken()
            let code = try await device.passwordLogin()
            let tokens = try await device.redeem(code: code)
            let refresh = try #require(tokens.json["refresh_token"]?.stringValue)
            // A client that does not know the current nonce (a new process, say) meets the challenge.
            device.nonce = nil
            let challenged = try await device.refresh(refresh)
            #expect(challenged.json["error"] == "use_dpop_nonce", "\(challenged.text)")
            let challenges = server.server.journal.exchanges.filter { $0.rule == .dpopNonceMissing }
            #expect(!challenges.isEmpty, "the client met the nonce challenge")
            let printed = lines.all.filter { $0.contains("[dpop.nonce-missing]") }
            #expect(printed.count == (verbose ? challenges.count : 0), "verbose \(verbose): \(printed)")
            let other = try await RawHTTP.send("GET", server.base + "/oauth/userinfo")
            #expect(other.status == 401)
            #expect(lines.all.contains { $0.contains("GET /oauth/userinfo 401") }, "\(lines.all.suffix(3))")
            await server.stop()
        }
    }
}
