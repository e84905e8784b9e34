import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
import HaapiRules
import NIOCore
import Testing

@testable import HaapiServer

/// `/inspector`: the recent flows and requests, drawn and decoded, for this machine only; everything it
/// shows escaped; its memory bounded by its ring.
@Suite("Inspector: flows as sequence diagrams, requests decoded, local only, escaped, bounded")
struct InspectorTests {
    static func page(
        _ server: TestServer, _ path: String, headers: [(String, String)] = []
    ) async throws
        -> RawResponse
    {
        try await RawHTTP.send("GET", server.base + path, headers: headers)
    }

    /// The sections of a flow page, as their headings read.
    static func sections(_ html: String) -> [String] {
        html.components(separatedBy: "<section class=\"exchange").dropFirst().compactMap { section in
            guard let start = section.range(of: "<h2>"), let end = section.range(of: "</h2>") else { return nil }
            return String(section[start.upperBound..<end.lowerBound])
        }
    }

    @Test("a password login with the code's redemption is one flow, from the attestation challenge to the token")
    func loginIsOneFlow() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let code = try await device.passwordLogin()
        #expect(try await device.redeem(code: code).status == 200)
        let overview = try await Self.page(server, "/inspector")
        #expect(overview.status == 200 && overview.contentType == "text/html")
        #expect(overview.text.contains("<a href=\"/inspector/flows/1\">flow 1</a>"), "\(overview.text)")
        let flow = try await Self.page(server, "/inspector/flows/1")
        let steps = Self.sections(flow.text)
        #expect(steps.first?.hasPrefix("GET /oauth/token/cat → 200 attestation challenge") == true, "\(steps)")
        #expect(steps.last?.hasPrefix("POST /oauth/token (authorization_code) → 200 token response (DPoP)") == true)
        #expect(steps.contains { $0.contains("POST /authn/authenticate/password") }, "\(steps)")
        #expect(steps.count == 9, "\(steps.joined(separator: "\n"))")
        // The diagram: one arrow there and one back per request, each linking to its section.
        #expect(flow.text.components(separatedBy: "<a href=\"#r").count - 1 == steps.count)
        #expect(flow.text.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sequence\""))
        // Decoded, with the secrets masked: the proof's claims, not its signature; the password's length only.
        #expect(flow.text.contains("&quot;htm&quot;: &quot;POST&quot;"))
        #expect(flow.text.contains("password = (9 chars)"), "\(flow.text)")
        #expect(!flow.text.contains("Password1"))
        #expect(!flow.text.contains(code))
        #expect(flow.text.contains("ID token claims:"))
        // Pages load nothing from elsewhere: the script and style are the server's own.
        #expect(flow.header("content-security-policy")?.contains("script-src 'self'") == true)
        #expect(!flow.text.contains("http://") || !flow.text.contains("<script src=\"http"))
    }

    @Test("a refused request shows its rule, what was expected and what came, and the fix, in red")
    func refusalShown() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let proof = try DPoPTests.sign(
            DPoPTests.claims(device, url: "http://elsewhere.example/oauth/authorize"), key: device.key)
        #expect(try await DPoPTests.authorize(device, proofs: [proof]).status == 401)
        let flow = try await Self.page(server, "/inspector/flows/1")
        #expect(flow.text.contains("<section class=\"exchange refused\""))
        #expect(flow.text.contains("<strong>dpop.htu-mismatch</strong>"))
        #expect(
            flow.text.contains(
                "htu: expected \(device.url("/oauth/authorize")), got http://elsewhere.example/oauth/authorize"))
        #expect(flow.text.contains("Fix: " + HTML(text: Rule.dpopHtuMismatch.entry.fix).markup))
        #expect(flow.text.contains("First refusal: <a href=\"#r"), "the first refusal is named above the diagram")
        #expect(flow.text.contains("stroke=\"#c62828\""))
    }

    @Test("everything shown is escaped: script payloads in a user name, a redirect URI, a client id, a header")
    func escaped() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let payload = "<script>alert(1)</script>"
        let device = HaapiDevice(base: server.base)
        try await device.obtainHaapiToken()
        let login = try await device.startAuthenticator("password")
        _ = try await device.submit(login.json["actions"]?[0], [("userName", payload), ("password", "x")])
        _ = try await device.authorize(redirectURI: "app://" + payload)
        _ = try await RawHTTP.form(
            server.base + "/oauth/token", [("grant_type", payload), ("client_id", payload)],
            headers: [("X-Evil", payload)])
        _ = try await RawHTTP.send("GET", server.base + "/" + "%3Cscript%3Ealert(1)%3C/script%3E")
        var pages = ["/inspector", "/inspector/flows/1"]
        for sequence in 1...12 { pages.append("/inspector/requests/\(sequence)") }
        for path in pages {
            let page = try await Self.page(server, path)
            #expect(!page.text.contains("<script>alert"), "\(path) shows a raw payload")
            #expect(!page.text.lowercased().contains("<script>"), "\(path)")
        }
        let all = try await Self.page(server, "/inspector")
        #expect(all.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
    }

    @Test("refused from another Origin, a foreign Host or a cross-site fetch, as the admin endpoints are")
    func localOnly() async throws {
        let server = try await TestServer.shared.get()
        let port = server.running.port
        for headers in [
            [("Origin", "http://evil.example")], [("Host", "evil.example:\(port)")], [("Sec-Fetch-Site", "cross-site")],
        ] {
            for path in ["/inspector", "/inspector/flows/1", "/inspector/requests/1", "/inspector/live.js"] {
                let refused = try await Self.page(server, path, headers: headers)
                #expect(refused.status == 403, "\(path) \(headers)")
                #expect(!refused.text.contains("<svg"))
            }
        }
        #expect(try await Self.page(server, "/inspector", headers: [("Origin", server.base)]).status == 200)
    }

    /// Tests reach the server from 127.0.0.1 only, so the peer rule is checked on the addresses themselves.
    @Test("only a loopback peer passes the peer rule (the admin endpoints' and the inspector's)")
    func loopbackPeers() {
        for address in ["127.0.0.1", "127.5.6.7", "::1", "::ffff:127.0.0.1"] {
            #expect(ServerRequestContext.isLoopback(address), "\(address)")
        }
        for address in [
            nil, "10.0.0.2", "192.168.1.20", "::ffff:10.0.0.1", "1127.0.0.1", "127.0.0", "127.0.0.256", "fe80::1",
            "127.evil.example", "",
        ] {
            #expect(!ServerRequestContext.isLoopback(address), "\(address ?? "nil")")
        }
    }

    /// The journal keeps 500 requests whatever comes: after 100,000 refused requests, each as the middleware
    /// records it (headers with 512 bytes of padding, a form body, an OAuth error body, its refusal), it holds
    /// exactly what the last 500 hold, far inside its 10 MiB budget. (The process's RSS through the same flood
    /// over HTTP is measured on a `haapi serve` process of its own: `JournalFloodTests` in HaapiCLITests.)
    /// The HTTP path is checked with 3,000 requests: the ring stays at its capacity and keeps the newest.
    @Test("100,000 refused requests: the journal holds the last 500, within its budget")
    func flood() async throws {
        let journal = RequestJournal()
        func refused(_ index: Int) -> RecordedExchange {
            let form = ByteBuffer(string: "grant_type=flood-\(index)&client_id=client-\(index)")
            let answer = ByteBuffer(
                string:
                    #"{"error":"unsupported_grant_type","error_description":"grant_type flood-\#(index) is not supported [oauth.grant-unsupported]"}"#
            )
            return RecordedExchange(
                sequence: journal.nextSequence, time: Date(), duration: 0.001, method: "POST", path: "/oauth/token",
                query: nil,
                requestHeaders: [
                    ("content-type", "application/x-www-form-urlencoded"),
                    ("x-padding", String(repeating: "p", count: 512)),
                    ("host", "127.0.0.1:8080"),
                ],
                requestBody: RecordedExchange.cut(form), status: 400,
                responseHeaders: [("content-type", "application/json"), ("cache-control", "no-store")],
                responseBody: RecordedExchange.cut(answer), responseContentType: "application/json",
                clientID: "client-\(index)",
                refusal: Refusal(rule: .grantUnsupported, detail: "grant_type: got flood-\(index)"),
                proofKey: index % 3 == 0 ? "key-\(index)" : nil, issuedLink: nil, consumedLink: nil)
        }
        for index in 0..<2_000 { journal.append(refused(index)) }
        let full = journal.retainedBytes
        for index in 2_000..<102_000 { journal.append(refused(index)) }
        #expect(journal.exchanges.count == RequestJournal.capacity)
        #expect(journal.exchanges.last?.clientID == "client-101999")
        // The same kind of request, so the same bytes within a few digits a request.
        #expect(abs(journal.retainedBytes - full) < RequestJournal.capacity * 8, "\(full) → \(journal.retainedBytes)")
        #expect(journal.retainedBytes < 10 * 1_048_576)

        // Requests with 64 KiB of headers each: every entry within its budget, the journal within capacity × it.
        let heavy = HTTPFields(
            (0..<32).compactMap { index in
                HTTPField.Name("x-padding-\(index)").map {
                    HTTPField(name: $0, value: String(repeating: "h", count: 2_048))
                }
            })
        let kept = RecordedExchange.fields(heavy)
        #expect(
            kept.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count } <= RecordedExchange.headerBytesLimit + 64)
        #expect(kept.last?.value.hasSuffix("more fields not kept") == true, "\(kept.last ?? ("", ""))")
        for index in 0..<2_000 {
            var exchange = refused(index)
            exchange = RecordedExchange(
                sequence: exchange.sequence, time: exchange.time, duration: 0, method: "POST",
                path: RecordedExchange.cut(String(repeating: "/p", count: 4_000)) ?? "",
                query: RecordedExchange.cut(String(repeating: "q", count: 8_000)),
                requestHeaders: kept, requestBody: RecordedExchange.cut(ByteBuffer(repeating: 1, count: 64 * 1024)),
                status: 400, responseHeaders: kept,
                responseBody: RecordedExchange.cut(ByteBuffer(repeating: 2, count: 64 * 1024)),
                responseContentType: "application/json", clientID: nil,
                refusal: Refusal(
                    rule: .grantUnsupported, detail: RecordedExchange.cut(String(repeating: "d", count: 9_000))),
                proofKey: nil, issuedLink: nil, consumedLink: nil)
            journal.append(exchange)
        }
        #expect(
            journal.retainedBytes <= RequestJournal.capacity * RecordedExchange.maxEntryBytes,
            "\(journal.retainedBytes)")
        #expect(
            RequestJournal.capacity * RecordedExchange.maxEntryBytes < 13 * 1_048_576,
            "the bound docs/DEBUGGING.md states")

        let server = try await TestServer()
        defer { Task { await server.stop() } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in stride(from: worker, to: 3_000, by: 8) {
                        let response = try await RawHTTP.form(
                            server.base + "/oauth/token", [("grant_type", "flood-\(index)")])
                        guard response.status == 400 else { throw UnexpectedResponse("\(response.status)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(server.server.journal.exchanges.count == RequestJournal.capacity)
        #expect(server.server.journal.exchanges.allSatisfy { $0.rule == .grantUnsupported })
    }
}

/// The inspector masks by what a step declared, not only by well-known names (issue 49 item 7).
@Suite("Inspector masking: declared password fields and the browser's resume nonce")
struct InspectorDeclaredMaskingTests {
    @Test("a password-type field named pwd shows as its length; the resume nonce never shows")
    func declaredAndResume() async throws {
        var configuration = try TestConfiguration.make()
        configuration.authenticators.append(
            AuthenticatorConfiguration(
                id: "pin", type: .form, title: "PIN", user: "approver",
                formSteps: [
                    .init(
                        title: "PIN",
                        fields: [
                            .init(name: "pwd", type: .password, accept: "[0-9a-z-]{4,20}"),
                            .init(name: "note", type: .text),
                        ])
                ]))
        configuration.clients[0].login = nil
        let server = try await TestServer(configuration: configuration)
        defer { Task { await server.stop() } }
        let device = try await AuthenticatorTests.device(server)
        let form = try await device.startAuthenticator("pin")
        let secret = "s3cret-pin-42"
        // Refused (the note is missing) and then accepted: masked both times.
        _ = try await device.submit(form.json["actions"]?[0], [("pwd", secret)])
        _ = try await device.submit(form.json["actions"]?[0], [("pwd", secret), ("note", "visible-note")])

        let browser = try await AuthenticatorTests.device(server)
        let (launch, url) = try await BrowserPageTests.browserStep(browser)
        let page = try await SignInPage.load(url.absoluteString)
        let signedIn = try await page.post(userName: "demouser", password: "Password1")
        let location = try #require(signedIn.header("Location"))
        let nonce = try #require(
            URLComponents(string: location)?.queryItems?.first { $0.name == "_resume_nonce" }?.value)
        let step = try #require(try AuthenticatorTests.step(launch) as? ExternalBrowserClientOperationStep)
        let resumeURL = try #require(URL(string: location))
        let parameters = try #require(step.formattedParametersFromURL(resumeURL))
        _ = try await browser.submit(
            launch.json["actions"]?[0]?["model"]?["continueActions"]?[0], parameters.map { ($0.key, $0.value) })

        var shown = ""
        for exchange in server.server.journal.exchanges {
            shown += try await InspectorTests.page(server, "/inspector/requests/\(exchange.sequence)").text
        }
        #expect(shown.contains("pwd = (13 chars)") && shown.contains("note = visible-note"), "\(shown.prefix(3000))")
        #expect(!shown.contains(secret))
        #expect(!shown.contains(nonce) && shown.contains("_resume_nonce"), "the nonce's name shows, never its value")
    }
}
