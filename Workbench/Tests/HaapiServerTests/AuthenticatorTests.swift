import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRawClient
import Testing

@testable import HaapiServer

@Suite("Authenticators and problems (item 6)")
struct AuthenticatorTests {
    static func device(_ server: TestServer, clientID: String = "haapi-demo") async throws -> HaapiDevice {
        let clock = server.clock
        let device = HaapiDevice(base: server.base, clientID: clientID, clock: { clock.now })
        try await device.obtainHaapiToken()
        return device
    }

    static func step(_ response: RawResponse) throws -> any HaapiRepresentation {
        guard
            case .representation(let step) = try HaapiDecoder().decode(
                response.body, contentType: response.header("Content-Type"))
        else {
            throw UnexpectedResponse("expected a step, got \(response.status) \(response.text)")
        }
        return step
    }

    static func problem(_ response: RawResponse) throws -> any ProblemRepresentation {
        #expect(response.contentType == "application/problem+json")
        guard
            case .problem(let problem) = try HaapiDecoder().decode(
                response.body, contentType: response.header("Content-Type"))
        else {
            throw UnexpectedResponse("expected a problem, got \(response.status) \(response.text)")
        }
        return problem
    }

    @Test("password problems: invalid input names the fields; wrong password is incorrect-credentials")
    func passwordProblems() async throws {
        let server = try await TestServer.shared.get()
        let device = try await Self.device(server)
        let login = try await device.startAuthenticator("password")
        let missing = try await device.submit(login.json["actions"]?[0], [("userName", "demouser")])
        let invalid = try #require(try Self.problem(missing) as? InvalidInputProblem)
        #expect(
            missing.status == 400 && invalid.invalidFields.map(\.name) == ["password"]
                && invalid.invalidFields.first?.reason == "missing")
        let wrong = try await device.submit(
            login.json["actions"]?[0], [("userName", "demouser"), ("password", "nope")])
        #expect(try Self.problem(wrong).type == .incorrectCredentialsProblem)
        let unknown = try await device.submit(
            login.json["actions"]?[0], [("userName", "nobody"), ("password", "nope")])
        #expect(try Self.problem(unknown).type == .incorrectCredentialsProblem)
    }

    @Test("too many failures lock the account (too-many-attempts), even for the right password")
    func lockout() async throws {
        let server = try await TestServer.shared.get()
        let device = try await Self.device(server)
        let login = try await device.startAuthenticator("password")
        var last: RawResponse?
        for _ in 0..<5 {
            last = try await device.submit(login.json["actions"]?[0], [("userName", "lockme"), ("password", "wrong")])
        }
        #expect(try Self.problem(try #require(last)).type == .tooManyAttemptsProblem)
        let right = try await device.submit(
            login.json["actions"]?[0], [("userName", "lockme"), ("password", "Password1")])
        #expect(try Self.problem(right).type == .tooManyAttemptsProblem)
    }

    @Test("a session used with another device's token is mismatch-between-session-and-access-token")
    func sessionMismatch() async throws {
        let server = try await TestServer.shared.get()
        let owner = try await Self.device(server)
        _ = try await owner.authorize()
        let thief = try await Self.device(server)
        thief.sessionID = owner.sessionID
        let response = try await thief.haapi("GET", "/authn/authenticate")
        #expect(try Self.problem(response).type == .sessionAndAccessTokenMismatchProblem)
        thief.sessionID = "made-up"
        #expect(try Self.problem(try await thief.haapi("GET", "/authn/authenticate")).type == .unexpectedProblem)
    }

    @Test("authorize errors are error-authorization-response problems")
    func authorizeErrors() async throws {
        let server = try await TestServer.shared.get()
        let device = try await Self.device(server)
        let badRedirect = try #require(
            try Self.problem(try await device.authorize(redirectURI: "https://evil.example/cb"))
                as? AuthorizationProblem)
        #expect(badRedirect.error == "invalid_redirect_uri" && badRedirect.code == "invalid_redirect_uri")
        let badScope = try #require(
            try Self.problem(try await device.authorize(scope: "openid admin")) as? AuthorizationProblem)
        #expect(badScope.error == "invalid_scope")
    }

    @Test("account creation is a registration step; a taken name is invalid input; the new account is signed in")
    func registration() async throws {
        let server = try await TestServer.shared.get()
        let device = try await Self.device(server)
        let login = try await device.startAuthenticator("password")
        let registerLink = try #require(try Self.step(login).links.first { $0.rel == "register-create" })
        let form = try await device.haapi("GET", registerLink.href)
        #expect(try Self.step(form).type == .registrationStep)
        let taken = try await device.submit(
            form.json["actions"]?[0],
            [("userName", "demouser"), ("password", "longenough1"), ("email", "x@example.com")])
        #expect((try Self.problem(taken) as? InvalidInputProblem)?.invalidFields.map(\.name) == ["userName"])
        let short = try await device.submit(
            form.json["actions"]?[0],
            [("userName", "newbie-\(UUID().uuidString.prefix(6))"), ("password", "short"), ("email", "x@example.com")])
        #expect((try Self.problem(short) as? InvalidInputProblem)?.invalidFields.first?.name == "password")
        let name = "newbie-\(UUID().uuidString.prefix(8))"
        let created = try await device.submit(
            form.json["actions"]?[0],
            [("userName", name), ("password", "longenough1"), ("email", "\(name)@example.com")])
        let final = try await device.submit(created.json["actions"]?[0])
        let code = try #require(final.json["properties"]?["code"]?.stringValue)
        let tokens = try await device.redeem(code: code)
        let idToken = try CompactJWS(parsing: try #require(tokens.json["id_token"]?.stringValue)).payloadObject()
        #expect(idToken["sub"]?.stringValue == name)
    }

    @Test("forgot password gives the same answer for every name and writes to the outbox for real accounts")
    func forgotPassword() async throws {
        let server = try await TestServer.shared.get()
        let device = try await Self.device(server)
        let login = try await device.startAuthenticator("password")
        let link = try #require(try Self.step(login).links.first { $0.rel == "forgot-password" })
        let form = try await device.haapi("GET", link.href)
        let known = try await device.submit(form.json["actions"]?[0], [("userName", "demouser")])
        let unknown = try await device.submit(form.json["actions"]?[0], [("userName", "ghost")])
        #expect(try Self.step(known).messages.map(\.text) == (try Self.step(unknown).messages.map(\.text)))
        #expect(
            await server.server.outbox.messages.contains {
                $0.username == "demouser" && $0.subject == "Reset your password"
            })
    }

    @Test("e-mail code: sent to the outbox; resend is a continue-same-step and replaces the code; wrong codes fail")
    func emailOTP() async throws {
        let server = try await TestServer.shared.get()
        let device = try await Self.device(server)
        let start = try await device.startAuthenticator("email")
        let sent = try await device.submit(start.json["actions"]?[0], [("userName", "demouser")])
        let codeStep = try Self.step(sent)
        // A username typed is not turned into the account's address (that would tell the account exists).
        #expect(
            (codeStep.properties as? GenericProperties)?.rawJSON["recipientOfCommunication"]
                == "the e-mail address of the account")
        let firstCode = try #require(await server.server.outbox.latestCode(for: "demouser"))
        let resend = try await device.submit(sent.json["actions"]?[1])
        #expect(try Self.step(resend) is ContinueSameStep)
        let secondCode = try #require(await server.server.outbox.latestCode(for: "demouser"))
        let wrong = try await device.submit(
            sent.json["actions"]?[0], [("otp", secondCode == "000000" ? "111111" : "000000")])
        #expect(try Self.problem(wrong).type == .incorrectCredentialsProblem)
        if firstCode != secondCode {
            #expect(
                try Self.problem(try await device.submit(sent.json["actions"]?[0], [("otp", firstCode)])).type
                    == .incorrectCredentialsProblem)
        }
        let accepted = try await device.submit(sent.json["actions"]?[0], [("otp", secondCode)])
        #expect(try Self.step(accepted) is RedirectionStep)
        #expect(try await device.submit(accepted.json["actions"]?[0]).json["properties"]?["code"]?.stringValue != nil)
    }

    @Test("e-mail code expires")
    func emailExpiry() async throws {
        let server = try await TestServer()
        let device = try await Self.device(server)
        let start = try await device.startAuthenticator("email")
        let sent = try await device.submit(start.json["actions"]?[0], [("userName", "demouser@example.com")])
        let code = try #require(await server.server.outbox.latestCode(for: "demouser"))
        server.clock.advance(301)
        let late = try await device.submit(sent.json["actions"]?[0], [("otp", code)])
        #expect(try Self.problem(late).type == .authenticationFailedProblem)
        await server.stop()
    }

    @Test("approve on another device: polling pending → approved through the admin endpoint → done → code")
    func approval() async throws {
        let server = try await TestServer.shared.get()
        let device = try await Self.device(server)
        let start = try await device.startAuthenticator("approve")
        let pending = try await device.submit(start.json["actions"]?[0], [("userName", "approver")])
        let polling = try #require(try Self.step(pending) as? PollingStep)
        #expect(
            polling.status == .pending && polling.pollingProperties.interval == 1000
                && polling.pollingProperties.maxWaitTime == 30)
        #expect(polling.cancelAction != nil)
        let stillPending = try #require(
            try Self.step(try await device.submit(pending.json["actions"]?[0])) as? PollingStep)
        #expect(stillPending.status == .pending)

        let listing = try await RawHTTP.send("GET", server.base + "/admin/approvals?user=approver")
        let id = try #require(listing.json["approvals"]?[0]?["id"]?.stringValue)
        let approve = try await RawHTTP.form(server.base + "/admin/approve", [("approval", id)])
        #expect(approve.status == 200 && approve.json["approved"] == true)
        let done = try await device.submit(pending.json["actions"]?[0])
        let doneStep = try #require(try Self.step(done) as? PollingStep)
        #expect(doneStep.status == .done && doneStep.mainAction?.kind == .redirect)
        let redirect = try await device.submit(done.json["actions"]?[0])
        #expect(try await device.submit(redirect.json["actions"]?[0]).json["properties"]?["code"]?.stringValue != nil)
        #expect(try await RawHTTP.form(server.base + "/admin/approve", [("approval", id)]).status == 404)
    }

    @Test("approve on another device: nobody approves in time → failed")
    func approvalTimeout() async throws {
        let server = try await TestServer()
        let device = try await Self.device(server)
        let start = try await device.startAuthenticator("approve")
        let pending = try await device.submit(start.json["actions"]?[0], [("userName", "approver")])
        server.clock.advance(31)
        let failed = try #require(try Self.step(try await device.submit(pending.json["actions"]?[0])) as? PollingStep)
        #expect(failed.status == .failed)
        await server.stop()
    }

    @Test(
        "external browser: the operation decodes, the HTML page signs in and redirects with _resume_nonce, the nonce resumes the flow"
    )
    func externalBrowser() async throws {
        let server = try await TestServer.shared.get()
        let device = try await Self.device(server)
        let launch = try await device.startAuthenticator("browser")
        let step = try #require(try Self.step(launch) as? ExternalBrowserClientOperationStep)
        let url = try #require(step.urlToLaunch(redirectTo: "app://haapi"))

        let page = try await BrowserPageTests.LoadedPage.load(url.absoluteString)
        #expect(page.response.status == 200 && page.response.text.contains("<form method=\"post\">"))
        let wrong = try await page.post(userName: "demouser", password: "nope")
        #expect(wrong.status == 200 && wrong.text.contains("Incorrect username or password"))
        let evil = try await page.post(userName: "demouser", password: "Password1", redirect: "https://evil.example")
        #expect(evil.status == 400)
        let signedIn = try await page.post(userName: "demouser", password: "Password1")
        #expect(signedIn.status == 303)
        let location = try #require(signedIn.header("Location").flatMap(URL.init(string:)))
        let parameters = try #require(step.formattedParametersFromURL(location))

        let badNonce = try await device.submit(
            launch.json["actions"]?[0]?["model"]?["continueActions"]?[0], [("_resume_nonce", "guess")])
        #expect(try Self.problem(badNonce).type == .authenticationFailedProblem)
        let resumed = try await device.submit(
            launch.json["actions"]?[0]?["model"]?["continueActions"]?[0], parameters.map { ($0.key, $0.value) })
        #expect(try Self.step(resumed) is RedirectionStep)
        #expect(try await device.submit(resumed.json["actions"]?[0]).json["properties"]?["code"]?.stringValue != nil)
    }

    @Test("consent: a user-consent step; declining is access_denied")
    func consentDeclined() async throws {
        let server = try await TestServer.shared.get()
        let device = try await Self.device(server, clientID: "consent-client")
        let pkce = PKCE()
        let redirect = try await device.authorize(
            redirectURI: "app://consent", scope: "openid profile email",
            extra: [("code_challenge", pkce.codeChallenge), ("code_challenge_method", "S256")])
        let login = try await device.submit(redirect.json["actions"]?[0])
        let afterLogin = try await device.submit(
            login.json["actions"]?[0], [("userName", "demouser"), ("password", "Password1")])
        let consent = try await device.submit(afterLogin.json["actions"]?[0])
        let step = try #require(try Self.step(consent) as? UserConsentStep)
        let fields = try #require(step.formActions.first?.model.fields.compactMap { $0 as? CheckboxFormField })
        #expect(
            fields.map(\.name) == ["scope_openid", "scope_profile", "scope_email"] && fields[0].readonly
                && fields.allSatisfy(\.checked))
        let declined = try #require(
            try Self.problem(try await device.submit(consent.json["actions"]?[1])) as? AuthorizationProblem)
        #expect(declined.error == "access_denied")
    }
}
