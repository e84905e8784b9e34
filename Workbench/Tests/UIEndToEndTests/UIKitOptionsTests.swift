import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiUI
import Testing

/// The UI kit options that change behaviour: error feedback, the app opener for BankID, the kit's words.
@Suite("UI kit options", .timeLimit(.minutes(3)))
@MainActor
struct UIKitOptionsTests {
    final class Recorder: HaapiFlowResult {
        var errors: [any Error] = []
        func didReceiveOAuthTokenModel(_ oAuthTokenModel: OAuthTokenModel) {}
        func didReceiveError(_ error: Error) { errors.append(error) }
    }

    /// Answers like a HAAPI server whose first step is BankID on this device; records what was asked.
    final class BankIDServer: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var paths: [String] = []
        var requested: [String] { lock.withLock { paths } }
        let failing: Bool

        init(failing: Bool = false) { self.failing = failing }

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            lock.withLock { paths.append(request.method + " " + request.url.path) }
            if failing { throw .couldNotConnect("the test server is down") }
            let json: String
            let type: String
            switch request.url.path {
            case "/oauth/token":
                (json, type) = (
                    #"{"access_token":"haapi-token","token_type":"DPoP","expires_in":300}"#, "application/json"
                )
            case "/oauth/authorize":
                (json, type) = (Self.bankIDStep, "application/vnd.auth+json")
            default:
                (json, type) = (Self.pollingStep, "application/vnd.auth+json")
            }
            return HTTPResponse(
                statusCode: 200, headers: ["Content-Type": type], body: Data(json.utf8), url: request.url)
        }

        static let bankIDStep = """
            {"type":"authentication-step","actions":[{"template":"client-operation","kind":"login","title":"BankID",
             "model":{"name":"bankid","arguments":{"autoStartToken":"token-123"},
             "continueActions":[{"template":"form","kind":"redirect","model":{"href":"/authn/bankid/poller","method":"GET"}}]}}]}
            """
        static let pollingStep = """
            {"type":"polling-step","properties":{"status":"pending"},"actions":[{"template":"form","kind":"poll",
             "model":{"href":"/authn/bankid/poller","method":"GET"}}]}
            """
    }

    final class RecordingOpener: ExternalAppOpener, @unchecked Sendable {
        private let lock = NSLock()
        private var urls: [URL] = []
        var opened: [URL] { lock.withLock { urls } }
        func open(_ url: URL) async -> Bool {
            lock.withLock { urls.append(url) }
            return true
        }
    }

    func application(
        _ transport: BankIDServer, opener: (any ExternalAppOpener)?, feedback: Bool = true,
        locale: Locale = Locale(identifier: "en_US")
    ) -> HaapiUIKitApplication {
        let base = URL(string: "https://login.example")!
        let configuration = HaapiUIKitConfigurationBuilder(
            clientId: "app", baseUrl: base, tokenEndpointUrl: base.appendingPathComponent("oauth/token"),
            authorizationEndpointUrl: base.appendingPathComponent("oauth/authorize"),
            appRedirect: "app://cb"
        )
        .setAttestationConfiguration(AttestationConfiguration(useAttestation: false))
        .setClientAuthenticationMethod(ClientAuthenticationMethodSecret("secret"))
        .setTokenBoundConfiguration(BoundedTokenConfiguration(keyPairType: .p256))
        .setTransport(transport)
        .setAutoPollingDuration(0)
        .setShouldAutoHandleFlowErrorFeedback(feedback)
        .setExternalAppOpener(opener)
        .setLocalization(locale: locale)
        .build()
        return HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: configuration).build()
    }

    func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<200 where !condition() { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(condition())
    }

    @Test("BankID: the step opens the app once through the injected opener and the flow goes on to polling")
    func bankIDOpensApp() async throws {
        let server = BankIDServer()
        let opener = RecordingOpener()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: application(server, opener: opener))
        await viewModel.start()
        try await waitUntil { if case .polling? = viewModel.uiModel?.content { true } else { false } }
        #expect(opener.opened.map(\.absoluteString) == ["bankid:///?autostarttoken=token-123&redirect=null"])
        #expect(server.requested.contains("GET /authn/bankid/poller"))
    }

    @Test("BankID without an opener: nothing is opened or sent, the step stays with its link for the renderer")
    func bankIDWithoutOpener() async throws {
        let server = BankIDServer()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: application(server, opener: nil))
        await viewModel.start()
        guard case .clientOperation(let operation)? = viewModel.uiModel?.content else {
            Issue.record("no client operation")
            return
        }
        #expect(operation.opensExternalApp && operation.launchURL?.scheme == "bankid")
        #expect(await viewModel.launchExternalApp() == false)
        #expect(!server.requested.contains("GET /authn/bankid/poller"))
    }

    @Test(
        "error feedback on: an alert model in the user's language, and the result listener hears of the failure once it is dismissed"
    )
    func errorFeedback() async throws {
        let recorder = Recorder()
        let viewModel = HaapiFlowViewModel(
            haapiUIKitApplication: application(
                BankIDServer(failing: true), opener: nil,
                locale: Locale(identifier: "sv_SE")),
            flowResult: recorder)
        await viewModel.start()
        let feedback = try #require(viewModel.errorFeedback)
        #expect(feedback.title == "Inloggningen misslyckades" && feedback.dismissTitle == "OK")
        #expect(feedback.message.contains("the test server is down"), "\(feedback.message)")
        #expect(recorder.errors.isEmpty)
        viewModel.acknowledgeErrorFeedback()
        #expect(viewModel.errorFeedback == nil && recorder.errors.count == 1)
    }

    @Test("error feedback off: no alert model, the listener hears at once; a cancel never shows one")
    func errorFeedbackOff() async throws {
        let recorder = Recorder()
        let viewModel = HaapiFlowViewModel(
            haapiUIKitApplication: application(BankIDServer(failing: true), opener: nil, feedback: false),
            flowResult: recorder)
        await viewModel.start()
        #expect(viewModel.errorFeedback == nil && recorder.errors.count == 1)

        let cancelled = Recorder()
        let other = HaapiFlowViewModel(
            haapiUIKitApplication: application(BankIDServer(), opener: nil), flowResult: cancelled)
        await other.start()
        other.cancel()
        #expect(other.errorFeedback == nil && cancelled.errors.count == 1)
    }

    @Test("the kit's words: every key in English and Swedish, the locale picks the table, app overrides win")
    func strings() {
        for language in HaapiUIStrings.languages {
            let strings = HaapiUIStrings(locale: Locale(identifier: language), appBundle: nil)
            for key in HaapiUIStrings.Key.allCases {
                #expect(strings[key] != key.rawValue, "\(language) lacks \(key.rawValue)")
            }
        }
        let swedish = HaapiUIStrings(locale: Locale(identifier: "sv_SE"), appBundle: nil)
        #expect(swedish.languageCode == "sv" && swedish[.back] == "Tillbaka")
        #expect(HaapiUIStrings(locale: Locale(identifier: "fi_FI"), appBundle: nil)[.back] == "Back")
        #expect(
            HaapiUIStrings(locale: Locale(identifier: "en-GB"), overrides: ["hui_back": "Return"], appBundle: nil)[
                .back] == "Return")
    }
}

/// `.tabs` against the dev server: the selector becomes tabs and the first authenticator's screen shows at once.
@Suite("UI kit: authenticators as tabs", .timeLimit(.minutes(3)))
@MainActor
struct AuthenticatorTabsTests {
    @Test("tabs: no selector screen, the first tab's form is shown; another tab shows its own; list mode is unchanged")
    func tabs() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(selection: .tabs))
        await viewModel.start()
        try await viewModel.wait { viewModel.authenticatorTabs != nil && viewModel.forms.first != nil }
        let tabs = try #require(viewModel.authenticatorTabs)
        #expect(tabs.options.count > 1 && tabs.selectedIndex == 0)
        let firstScreen = try #require(viewModel.uiModel)
        if case .selector = firstScreen.content { Issue.record("the selector itself was shown") }

        let email = try #require(tabs.options.firstIndex { $0.model.href.hasSuffix("/email") })
        let before = viewModel.revision
        await viewModel.selectTab(email)
        try await viewModel.wait { viewModel.revision > before }
        #expect(viewModel.authenticatorTabs?.selectedIndex == email)
        #expect(
            viewModel.forms.first?.model.href
                != firstScreen.step.actions.compactMap { ($0 as? FormAction)?.model.href }.first,
            "the e-mail tab shows the e-mail authenticator's form")

        let list = HaapiFlowViewModel(haapiUIKitApplication: try server.application())
        await list.start()
        #expect(list.authenticatorTabs == nil)
        if case .selector? = list.uiModel?.content {} else { Issue.record("list mode shows the selector") }
    }
}
