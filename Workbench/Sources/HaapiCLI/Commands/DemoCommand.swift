import ArgumentParser
import Foundation
import HaapiServer
@_spi(Tooling) import HaapiUI

/// The quick start: the dev server in-process on a random loopback port, then an interactive login in the
/// terminal through the UI kit's view model, then what an app does with the tokens.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The quick start: a dev identity server in-process and an interactive login in your terminal.",
        discussion: HelpExamples.discussion(
            """
            Every authenticator of the dev server is offered: password (demouser / Password1), a code by e-mail \
            (the demo shows the inbox), approval on another device (the demo offers to approve), and an external \
            browser (the URL is printed; the demo can sign in through it for you). After the login it shows the \
            ID token's claims, refreshes once and revokes. Without a terminal on stdin, or with --non-interactive, \
            it runs the password path unattended.
            """,
            "haapi demo", "haapi demo --non-interactive", "haapi demo --answers answers.json --show-tokens"))

    @Flag(name: .long, help: "Run the password path unattended (for CI).")
    var nonInteractive = false

    @Option(name: .long, help: "Scripted answers for the flow (JSON; see `haapi login --help`).")
    var answers: String?

    @Flag(name: .long, help: "Print tokens in full instead of masked.")
    var showTokens = false

    static let passwordPath = #"[{"choose":"password"},{"fields":{"userName":"demouser","password":"Password1"}}]"#

    @MainActor
    func run() async throws {
        let io = TerminalIO(channel: .standardOutput)
        let unattended = nonInteractive || answers == nil && !io.isInteractive
        let script: FlowAnswers?
        if let answers {
            script = try FlowAnswers(file: answers)
        } else if unattended {
            script = FlowAnswers(try JSONParser().parse(Self.passwordPath).arrayValue?.compactMap(\.objectValue) ?? [])
        } else {
            script = nil
        }

        HaapiLogger.followUpTags = []
        let server = try DevServer(
            configuration: try ServerConfiguration.embeddedDefault, store: try ServerStore(path: nil))
        let running = try await server.start(port: 0, logLevel: .critical)
        let base = running.baseURL
        io.say(io.paint("swift-haapi demo", .bold))
        io.say("A dev identity server is running in this process at \(base.absoluteString).")
        io.say(
            "Sign in as \(io.paint("demouser", .bold)) with password \(io.paint("Password1", .bold)); every authenticator works."
        )
        if unattended { io.say(io.paint("(unattended: the password path with scripted answers)", .dim)) }

        let configuration = HaapiUIKitConfigurationBuilder(
            clientId: "haapi-demo", baseUrl: base, tokenEndpointUrl: base.appendingPathComponent("oauth/token"),
            authorizationEndpointUrl: base.appendingPathComponent("oauth/authorize"), appRedirect: "app://haapi"
        )
        .setRevocationEndpointURL(base.appendingPathComponent("oauth/revoke"))
        .setScopes(["openid", "profile", "email"])
        .setAttester(SoftwareAttester())
        .setTokenBoundConfiguration(BoundedTokenConfiguration(keyPairType: .p256))
        .setPasskeyAuthenticator(SoftwareAuthenticator(storage: InMemoryStorage()))
        .setExternalAppOpener(PrintedLinkOpener(io: io))
        .build()
        // One process against an in-process server: nothing to keep for a relaunch.
        let application = HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: configuration).setEphemeralDPoPKey()
            .build()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: application)
        var flow: TerminalFlow?
        let hooks = TerminalFlowHooks(
            beforeStep: { model in await Self.showInbox(model, server: server, userName: flow?.lastUserName, io: io) },
            pollingOffer: (
                after: 3,
                prompt:
                    "The other device is waiting. Press Enter to approve this sign-in there (the demo plays that device).",
                act: { await Self.approve(server: server, userName: flow?.lastUserName ?? "demouser", io: io) }
            ),
            browserSignIn: { url, userName, password in
                await Self.signInThroughPage(url, userName: userName, password: password)
            })
        flow = TerminalFlow(viewModel: viewModel, io: io, answers: script, hooks: hooks)
        let outcome = await flow?.run() ?? .cancelled
        var exitCode: Int32 = 0
        switch outcome {
        case .cancelled:
            io.say(io.paint("Sign-in cancelled.", .yellow))
            exitCode = 130
        case .failed(let error):
            io.say(io.paint("The sign-in failed: \(CLIFailure.classify(error).message)", .red))
            exitCode = 1
        case .tokens(let tokens):
            io.say()
            io.say(io.paint("✓ Signed in. Tokens (DPoP-bound to this device's key):", .green))
            for line in TokenSummary.lines(tokens, showTokens: showTokens) { io.say(line) }
            io.say(io.paint("ID token claims:", .bold))
            for line in TokenSummary.claims(tokens) { io.say(line) }
            if !(await afterLogin(tokens, application: application, io: io)) { exitCode = 1 }
            if exitCode == 0, flow?.createdPasskey == true, await wantsPasskeySignIn(script: script, io: io) {
                exitCode = await signInWithPasskey(application: application, script: script, hooks: hooks, io: io)
            }
        }
        await viewModel.close()
        await running.stop()
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    /// After a flow that created a passkey: sign in again with it? (`{"signInAgain": true}` when scripted.)
    @MainActor
    private func wantsPasskeySignIn(script: FlowAnswers?, io: TerminalIO) async -> Bool {
        if let script { return script.next(ifHas: "signInAgain")?["signInAgain"]?.boolValue == true }
        guard io.isInteractive else { return false }
        io.say()
        let answer =
            await io.readLine(prompt: "You created a passkey. Sign in again with it, no password? [Y/n] ") ?? "n"
        return answer.isEmpty || answer.lowercased().hasPrefix("y")
    }

    /// A second flow in which the passkey just created signs in. The user said yes to exactly that, so the
    /// flow goes straight there: the passkey authenticator, then its "Sign in with a passkey" form (the
    /// other one creates a passkey), each shown as it is taken.
    @MainActor
    private func signInWithPasskey(
        application: HaapiUIKitApplication, script: FlowAnswers?, hooks: TerminalFlowHooks, io: TerminalIO
    ) async -> Int32 {
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: application)
        defer { Task { await viewModel.close() } }
        let answers = script ?? FlowAnswers([["choose": "passkeys"], ["action": "Sign in with a passkey"]])
        switch await TerminalFlow(viewModel: viewModel, io: io, answers: answers, hooks: hooks).run() {
        case .tokens(let tokens):
            io.say()
            io.say(io.paint("✓ Signed in with your passkey.", .green))
            for line in TokenSummary.claims(tokens) { io.say(line) }
            return 0
        case .cancelled:
            io.say(io.paint("Sign-in cancelled.", .yellow))
            return 130
        case .failed(let error):
            io.say(io.paint("The passkey sign-in failed: \(CLIFailure.classify(error).message)", .red))
            return 1
        }
    }

    /// What an app does next: refresh once (with the same DPoP key), then revoke (log out).
    @MainActor
    private func afterLogin(_ tokens: OAuthTokenModel, application: HaapiUIKitApplication, io: TerminalIO) async -> Bool
    {
        guard let refreshToken = tokens.refreshToken else { return true }
        switch await OAuthLifecycle.refreshToken(refreshToken, haapiUIKitApplication: application) {
        case .success(let refreshed):
            io.say(
                io.paint("✓ Refreshed:", .green)
                    + " a new access token \(showTokens ? refreshed.accessToken : TokenOutput.mask(refreshed.accessToken))"
                    + (refreshed.refreshToken != refreshToken ? ", and the refresh token was rotated" : ""))
            let configuration = application.haapiUIKitConfiguration
            let oauth = OAuthTokenManager(
                oauthTokenConfiguration: HaapiConfiguration(
                    name: "demo-revoke", clientId: configuration.clientId, baseURL: configuration.baseUrl,
                    tokenEndpointURL: configuration.tokenEndpointUrl,
                    authorizationEndpointURL: configuration.authorizationEndpointUrl,
                    appRedirect: configuration.appRedirect, revocationEndpointURL: configuration.revocationEndpointURL))
            guard case .success = await oauth.revokeRefreshToken(refreshed.refreshToken ?? refreshToken) else {
                io.say(io.paint("Revocation failed.", .red))
                return false
            }
            io.say(io.paint("✓ Revoked", .green) + " the refresh token (logged out). Done.")
            return true
        case .failure(let error):
            io.say(io.paint("The refresh failed: \(error)", .red))
            return false
        }
    }

    /// The demo's inbox: when a step asks for the e-mailed code, show the message the server "sent".
    @MainActor
    static func showInbox(_ model: HaapiUIModel, server: DevServer, userName: String?, io: TerminalIO) async {
        guard case .forms(let forms) = model.content,
            forms.flatMap(\.visibleFields).contains(where: { $0.name == "otp" })
        else { return }
        guard
            let message = await server.outbox.messages.last(where: {
                $0.code != nil && (userName == nil || $0.username == userName || $0.to == userName)
            })
        else { return }
        io.say()
        io.say(io.paint("📬 Inbox of \(message.to) — \(message.subject): your code is \(message.code ?? "?")", .cyan))
    }

    @MainActor
    static func approve(server: DevServer, userName: String, io: TerminalIO) async {
        // The demo plays the other device: it approves the newest request of this user, which is this flow's.
        let approved: Bool
        if let newest = await server.pendingApprovals(for: userName).first {
            approved = await server.approve(approvalID: newest.id)
        } else {
            approved = false
        }
        io.write(io.useColor ? "\r\u{1B}[K" : "")
        io.say(approved ? "  📱 Approved on the other device." : "  📱 Nothing to approve for \(userName).")
    }

    /// Plays the browser: loads the sign-in page (its cookie and the form's hidden fields bind the post to
    /// this "browser"), posts the form as the page would and returns where the server redirects.
    static func signInThroughPage(_ url: URL, userName: String, password: String) async -> URL? {
        let transport = defaultHTTPTransport()
        guard let page = try? await transport.send(HTTPRequest(method: "GET", url: url, headers: [], body: nil)),
            page.statusCode == 200,
            let cookie = page.header("Set-Cookie")?.split(separator: ";").first.map(String.init),
            let html = String(data: page.body, encoding: .utf8),
            let field = hiddenValue(named: "csrf", in: html)
        else { return nil }
        let body = FormURLEncoding.encode([
            ("csrf", field), ("userName", userName), ("password", password),
            ("redirect_uri", hiddenValue(named: "redirect_uri", in: html) ?? "app://haapi"),
        ])
        guard
            let response = try? await transport.send(
                HTTPRequest(
                    method: "POST", url: url,
                    headers: [
                        ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie),
                    ],
                    body: Data(body.utf8))),
            [302, 303].contains(response.statusCode)
        else { return nil }
        return response.header("Location").flatMap(URL.init(string:))
    }

    /// The value of `<input type="hidden" name="NAME" value="…">` in the page (our own markup, escaped).
    private static func hiddenValue(named name: String, in html: String) -> String? {
        guard let start = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }
}
