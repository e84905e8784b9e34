import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRawClient
import Testing

@testable import HaapiServer

#if canImport(Glibc)
import Glibc
#endif

/// Attacks on the dev server, each with the legitimate path beside it (issue 12). Every test here performs
/// the attack and checks that it yields nothing.
@Suite("Attacks on the dev server", .timeLimit(.minutes(2)))
struct AttackTests {
    typealias A = AuthenticatorTests

    /// The registration form of the password authenticator, reached as a user would (login → "Create account").
    static func registrationForm(_ device: HaapiDevice) async throws -> JSONValue? {
        let login = try await device.startAuthenticator("password")
        let link = try #require(try A.step(login).links.first { $0.rel == "register-create" })
        return try await device.haapi("GET", link.href).json["actions"]?[0]
    }

    // MARK: Item 2: one approval approves one flow

    @Test("an approval names one flow: a second pending flow of the same user stays pending; ids are unguessable")
    func approvalPerFlow() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let first = try await A.device(server)
        let second = try await A.device(server)
        var polls: [JSONValue?] = []
        for device in [first, second] {
            let start = try await device.startAuthenticator("approve")
            let pending = try await device.submit(start.json["actions"]?[0], [("userName", "approver")])
            #expect(try #require(try A.step(pending) as? PollingStep).status == .pending)
            polls.append(pending.json["actions"]?[0])
        }
        let listing = try await RawHTTP.send("GET", server.base + "/admin/approvals?user=approver")
        let ids = (listing.json["approvals"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        #expect(ids.count == 2 && Set(ids).count == 2)
        #expect(ids.allSatisfy { $0.count >= 43 })  // 32 random bytes, base64url

        // The old way (approve "everything of this user") is refused and approves nothing.
        #expect(try await RawHTTP.form(server.base + "/admin/approve", [("user", "approver")]).status == 400)

        let firstSession = try #require(first.sessionID)
        let firstID = try #require(
            await server.server.flows.session(firstSession, now: Date())?.currentStep?.progress.approval?.id)
        #expect(try await RawHTTP.form(server.base + "/admin/approve", [("approval", firstID)]).status == 200)
        let firstState = try #require(try A.step(try await first.submit(polls[0])) as? PollingStep)
        let secondState = try #require(try A.step(try await second.submit(polls[1])) as? PollingStep)
        #expect(firstState.status == .done)
        #expect(secondState.status == .pending)
        #expect(
            try await RawHTTP.form(server.base + "/admin/approve", [("approval", "guessed-" + firstID.dropFirst(8))])
                .status == 404)
    }

    // MARK: Item 3: admin endpoints refuse browsers and rebound names

    @Test(
        "admin endpoints: a foreign Host (DNS rebinding), a foreign Origin or a cross-site fetch is refused; curl-like calls work"
    )
    func adminFromBrowsers() async throws {
        let server = try await TestServer.shared.get()
        let port = try #require(URL(string: server.base)?.port)
        let outbox = server.base + "/admin/outbox"
        #expect(try await RawHTTP.send("GET", outbox).status == 200)
        #expect(try await RawHTTP.send("GET", outbox, headers: [("Host", "localhost:\(port)")]).status == 200)
        #expect(try await RawHTTP.send("GET", outbox, headers: [("Origin", server.base)]).status == 200)

        let rebound = try await RawHTTP.send("GET", outbox, headers: [("Host", "attacker.example:\(port)")])
        #expect(rebound.status == 403 && rebound.text.contains("loopback address only"))
        #expect(try await RawHTTP.send("GET", outbox, headers: [("Origin", "https://attacker.example")]).status == 403)
        #expect(try await RawHTTP.send("GET", outbox, headers: [("Sec-Fetch-Site", "cross-site")]).status == 403)
        // A cross-site form post: a simple request a page can send without a preflight.
        let form = try await RawHTTP.form(
            server.base + "/admin/approve", [("approval", "x")], headers: [("Origin", "null")])
        #expect(form.status == 403)
        let rebindingApprove = try await RawHTTP.form(
            server.base + "/admin/approve", [("approval", "x")], headers: [("Host", "attacker.example:\(port)")])
        #expect(rebindingApprove.status == 403)
        #expect(
            try await RawHTTP.send("GET", server.base + "/admin/approvals", headers: [("Host", "127.0.0.2:\(port)")])
                .status == 403)
    }

    // MARK: Item 4: usernames and e-mail addresses do not collide

    @Test(
        "a new account cannot take another account's e-mail address as its name, nor its name as its e-mail, in any case"
    )
    func usernameEmailCollision() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        func register(_ username: String, email: String) async throws -> RawResponse {
            let device = try await A.device(server)
            return try await device.submit(
                try await Self.registrationForm(device),
                [("userName", username), ("password", "Password12"), ("email", email)])
        }
        let asEmail = try #require(
            try A.problem(try await register("demouser@example.com", email: "mallory@example.com"))
                as? InvalidInputProblem)
        #expect(asEmail.invalidFields.map(\.name) == ["userName"])
        let nameAsEmail = try #require(
            try A.problem(try await register("mallory", email: "DemoUser")) as? InvalidInputProblem)
        #expect(nameAsEmail.invalidFields.map(\.name) == ["email"])
        let sameEmail = try #require(
            try A.problem(try await register("mallory", email: "DEMOUSER@example.com")) as? InvalidInputProblem)
        #expect(sameEmail.invalidFields.map(\.name) == ["email"])
        let otherCase = try #require(
            try A.problem(try await register("DemoUser", email: "mallory@example.com")) as? InvalidInputProblem)
        #expect(otherCase.invalidFields.map(\.name) == ["userName"])
        #expect(try await server.server.store.user(named: "demouser@example.com") == nil)

        // The legitimate path still works, and "username or e-mail" finds exactly that account.
        let created = try await register("mallory", email: "mallory@example.com")
        #expect(try A.step(created).type == .redirectionStep, "\(created.text)")
        let device = try await A.device(server)
        let start = try await device.startAuthenticator("email")
        _ = try await device.submit(start.json["actions"]?[0], [("userName", "demouser@example.com")])
        let sent = await server.server.outbox.messages.last
        #expect(sent?.username == "demouser" && sent?.to == "demouser@example.com")

        // The configuration is held to the same rule.
        var configuration = try TestConfiguration.make()
        configuration.users.append(
            UserConfiguration(username: "demouser@example.com", passwordHash: ServerConfiguration.demoPasswordHash))
        #expect(throws: ConfigurationError.self) {
            try DevServer(configuration: configuration, store: ServerStore(path: nil))
        }
    }

    // MARK: Items 5 and 11: a code used twice revokes what it issued

    @Test(
        "a second redemption of a code fails and revokes the tokens of the first (refresh and access); introspection says inactive"
    )
    func codeReuse() async throws {
        let server = try await TestServer.shared.get()
        let device = try await A.device(server)
        let code = try await device.passwordLogin()
        let first = try await device.redeem(code: code)
        let access = try #require(first.json["access_token"]?.stringValue)
        let refresh = try #require(first.json["refresh_token"]?.stringValue)
        let introspectURL = server.base + "/oauth/introspect"
        let before = try await RawHTTP.form(
            introspectURL, [("token", access)], headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(before.json["active"] == true)

        let second = try await device.redeem(code: code)
        #expect(second.status == 400 && second.json["error"] == "invalid_grant")
        let after = try await RawHTTP.form(
            introspectURL, [("token", access)], headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(after.json["active"] == false)
        let refreshIntrospected = try await RawHTTP.form(
            introspectURL, [("token", refresh)], headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(refreshIntrospected.json["active"] == false)
        #expect(try await device.refresh(refresh).json["error"] == "invalid_grant")
    }

    @Test("introspection needs client authentication; tokens of a family revoked by refresh-token reuse stay inactive")
    func introspectionAndRevokedFamily() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let device = try await A.device(server)
        let tokens = try await device.redeem(code: try await device.passwordLogin())
        let firstRefresh = try #require(tokens.json["refresh_token"]?.stringValue)
        let rotated = try await device.refresh(firstRefresh)
        let access = try #require(rotated.json["access_token"]?.stringValue)
        let introspectURL = server.base + "/oauth/introspect"
        let anonymous = try await RawHTTP.form(introspectURL, [("token", access), ("client_id", "haapi-demo")])
        #expect(anonymous.status == 401 && anonymous.json["error"] == "invalid_client")
        let wrongSecret = try await RawHTTP.form(
            introspectURL, [("token", access)], headers: [RawHTTP.basic("secret-basic", "nope")])
        #expect(wrongSecret.status == 401)
        // A stranger's proof does not authenticate for the device's token.
        let stranger = HaapiDevice(base: server.base, key: SoftwareP256SigningKey())
        stranger.nonce = device.nonce
        let strangers = try await RawHTTP.form(
            introspectURL, [("token", access), ("client_id", "haapi-demo")],
            headers: [("DPoP", try stranger.proof("POST", introspectURL))])
        #expect(strangers.json["active"] != true)

        // Reusing the rotated refresh token (after the rotation leeway) revokes the family: the newest access
        // token goes inactive too.
        server.clock.advance(31)
        #expect(try await device.refresh(firstRefresh).json["error"] == "invalid_grant")
        let after = try await RawHTTP.form(
            introspectURL, [("token", access)], headers: [RawHTTP.basic("secret-basic", "basic-secret")])
        #expect(after.json["active"] == false)
    }

    // MARK: Item 6: PKCE

    @Test(
        "PKCE: required of public clients, plain and a missing method refused, a code with a challenge needs its verifier"
    )
    func pkceRequired() async throws {
        let server = try await TestServer.shared.get()
        let device = try await A.device(server)
        let without = try #require(try A.problem(try await device.authorize(usePKCE: false)) as? AuthorizationProblem)
        #expect(without.error == "invalid_request")
        let verifier = PKCE()
        let plain = try #require(
            try A.problem(
                try await device.authorize(extra: [
                    ("code_challenge", verifier.codeVerifier),
                    ("code_challenge_method", "plain"),
                ])) as? AuthorizationProblem)
        #expect(plain.error == "invalid_request")
        let noMethod = try #require(
            try A.problem(try await device.authorize(extra: [("code_challenge", verifier.codeChallenge)]))
                as? AuthorizationProblem)
        #expect(noMethod.error == "invalid_request")
        let garbage = try #require(
            try A.problem(
                try await device.authorize(extra: [("code_challenge", "short"), ("code_challenge_method", "S256")]))
                as? AuthorizationProblem)
        #expect(garbage.error == "invalid_request")

        let code = try await device.passwordLogin()
        let withVerifier = try await device.redeem(code: code)  // the device sends the verifier of its challenge
        #expect(withVerifier.status == 200, "\(withVerifier.text)")
        let second = try await device.passwordLogin()
        device.pkce = nil  // forget the verifier: the token request goes without one
        let noVerifier = try await device.redeem(code: second)
        #expect(
            noVerifier.status == 400 && noVerifier.json["error"] == "invalid_grant"
                && noVerifier.text.contains("code_verifier"))
    }

    // MARK: Item 7: wrong e-mail codes count per account

    @Test(
        "e-mail codes: neither resend, a new code nor a new flow resets the wrong-code count; the lock lifts with time")
    func emailCodeAttempts() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        func codeStep(_ name: String) async throws -> (HaapiDevice, RawResponse) {
            let device = try await A.device(server)
            let start = try await device.startAuthenticator("email")
            return (device, try await device.submit(start.json["actions"]?[0], [("userName", name)]))
        }
        func wrong(_ device: HaapiDevice, _ step: RawResponse) async throws -> ProblemType {
            let code = await server.server.outbox.latestCode(for: "demouser") ?? "123456"
            let guess = code == "000000" ? "111111" : "000000"
            return try A.problem(try await device.submit(step.json["actions"]?[0], [("otp", guess)])).type
        }
        for name in ["demouser", "nobody-here"] {
            var (device, step) = try await codeStep(name)
            #expect(try await wrong(device, step) == .incorrectCredentialsProblem)
            #expect(try await wrong(device, step) == .incorrectCredentialsProblem)
            _ = try await device.submit(step.json["actions"]?[1])  // resend: a new code, the same count
            #expect(try await wrong(device, step) == .incorrectCredentialsProblem)
            (device, step) = try await codeStep(name)  // a new flow, posting the name again
            #expect(try await wrong(device, step) == .incorrectCredentialsProblem)
            (device, step) = try await codeStep(name)
            #expect(try await wrong(device, step) == .tooManyAttemptsProblem, "\(name): the fifth wrong code locks")
            // Locked: even the right code of a fresh flow is refused, for a real and an unknown name alike.
            (device, step) = try await codeStep(name)
            let right = await server.server.outbox.latestCode(for: "demouser") ?? "123456"
            let refused = try await device.submit(step.json["actions"]?[0], [("otp", right)])
            #expect(try A.problem(refused).type == .tooManyAttemptsProblem)
        }
        server.clock.advance(301)
        let (device, step) = try await codeStep("demouser")
        let code = try #require(await server.server.outbox.latestCode(for: "demouser"))
        let accepted = try await device.submit(step.json["actions"]?[0], [("otp", code)])
        #expect(try A.step(accepted).type == .redirectionStep, "\(accepted.text)")
    }

    // MARK: Item 8: htu is the configured URL, not the Host header

    @Test(
        "DPoP htu is compared with the server's public URL: a proof for another host is refused even when Host names it"
    )
    func htuFromPublicURL() async throws {
        let server = try await TestServer.shared.get()
        let device = try await A.device(server)
        let port = try #require(URL(string: server.base)?.port)
        let forgedURL = "http://attacker.example:\(port)/oauth/authorize"
        let proof = try DPoPTests.sign(DPoPTests.claims(device, url: forgedURL), key: device.key)
        let headers = [
            ("Accept", "application/vnd.auth+json"), ("Authorization", "DPoP " + (device.haapiToken ?? "")),
            ("DPoP", proof),
            ("Host", "attacker.example:\(port)"),
        ]
        let response = try await RawHTTP.send("GET", device.url(DPoPTests.authorizePath), headers: headers)
        DPoPTests.expectRejected(response)
        #expect(response.text.contains("htu"))
        // The same request with a proof for the real URL passes, whatever Host says.
        let honest = try DPoPTests.sign(DPoPTests.claims(device), key: device.key)
        let passed = try await RawHTTP.send(
            "GET", device.url(DPoPTests.authorizePath),
            headers: Array(headers.dropLast(2)) + [("DPoP", honest), ("Host", "attacker.example:\(port)")])
        #expect(passed.status == 200, "\(passed.text)")
    }

    // MARK: Item 9: nothing tells a known name from an unknown one

    @Test("unknown names: the same lockout, the same approval step, the same e-mail step, the same hashing work")
    func noEnumeration() async throws {
        let server = try await TestServer()
        defer { Task { await server.stop() } }
        let device = try await A.device(server)
        let login = try await device.startAuthenticator("password")
        var answers: [String: [ProblemType]] = [:]
        for name in ["lockme", "ghost-user"] {
            var types: [ProblemType] = []
            for _ in 0..<6 {
                types.append(
                    try A.problem(
                        try await device.submit(login.json["actions"]?[0], [("userName", name), ("password", "wrong")])
                    ).type)
            }
            answers[name] = types
        }
        #expect(answers["lockme"] == answers["ghost-user"])
        #expect(answers["ghost-user"]?.last == .tooManyAttemptsProblem)
        // After the lockout period both start a new count alike: one failure is just a wrong password.
        server.clock.advance(301)
        let relogin = try await device.startAuthenticator("password")
        for name in ["lockme", "ghost-user"] {
            let after = try await device.submit(
                relogin.json["actions"]?[0], [("userName", name), ("password", "wrong")])
            #expect(try A.problem(after).type == .incorrectCredentialsProblem, "\(name)")
        }

        // Approval: an unknown name waits like a known one (and nobody can approve it).
        func approvalStep(_ name: String) async throws -> JSONValue {
            let device = try await A.device(server)
            let start = try await device.startAuthenticator("approve")
            var json = try await device.submit(start.json["actions"]?[0], [("userName", name)]).json
            json = Self.withoutVaryingValues(json)
            return json
        }
        #expect(try await approvalStep("approver") == (try await approvalStep("nobody-at-all")))
        #expect(await server.server.pendingApprovals(for: "nobody-at-all").isEmpty)

        // E-mail: the step (and its recipient line) is the same for a real and an unknown username.
        func emailStep(_ name: String) async throws -> JSONValue {
            let device = try await A.device(server)
            let start = try await device.startAuthenticator("email")
            return try await device.submit(start.json["actions"]?[0], [("userName", name)]).json
        }
        #expect(try await emailStep("demouser") == (try await emailStep("nobody-at-all")))
        // Typed addresses of the same shape show the same masked line, whether or not an account has them.
        #expect(try await emailStep("demouser@example.com") == (try await emailStep("dunknown@example.com")))

        // The password check costs one hash for every name: unknown names and passkey-only accounts too.
        let hasher = server.server.passwords
        let before = server.server.passwordPool.completedJobs
        _ = try await server.server.authenticatorService.checkPassword(username: "approver", password: "wrong")
        _ = try await server.server.authenticatorService.checkPassword(username: "not-an-account", password: "wrong")
        #expect(server.server.passwordPool.completedJobs == before + 2)
        #expect(hasher.unmatchableHash().hasPrefix("pbkdf2-sha256$\(hasher.iterations)$"))
    }

    /// The parts of a polling step that differ between any two requests (deadlines), removed.
    static func withoutVaryingValues(_ json: JSONValue) -> JSONValue {
        guard case .object(var object) = json, case .object(var properties)? = object["properties"] else { return json }
        properties["maxWaitRemainingTime"] = nil
        object["properties"] = .object(properties)
        return .object(object)
    }

    @Test(
        "password hashing runs on the pool's own threads and a full pool answers busy instead of queueing without end")
    func hashingPool() async throws {
        let pool = PasswordHashingPool(workers: 1, maxWaiting: 0)
        #expect(try await pool.run { PasswordHashingPool.isOnPoolThread })
        #expect(!PasswordHashingPool.isOnPoolThread)
        let gate = DispatchSemaphore(value: 0)
        async let blocked: Void = try pool.run { gate.wait() }
        try await Task.sleep(for: .milliseconds(100))
        await #expect(throws: PasswordHashingPool.Failure.busy) { try await pool.run { () } }
        gate.signal()
        try await blocked
        #expect(try await pool.run { 42 } == 42)
    }
}
