import Foundation
import HaapiRawClient
@_spi(Tooling) import HaapiUI
import Testing

/// `openExternalBrowser(deepLinks:)` with launchers that play the browser against the dev server's sign-in
/// page: the in-app session that catches the redirect, the system browser whose redirect comes through the
/// app's URL handler, a page closed by the user, a launcher that hands back someone else's URL.
@Suite("External-browser launcher", .timeLimit(.minutes(3)))
@MainActor
struct ExternalBrowserLauncherTests {
    /// A browser: each launch either signs in on the page and ends as `mode` says, or is closed.
    actor PlayedBrowser: ExternalBrowserLauncher {
        enum Mode { case catchesRedirect, returnsThroughApp, closed, returnsForeign }
        private var modes: [Mode]
        private(set) var launched: [(url: URL, prefix: String)] = []
        private(set) var redirect: URL?

        init(_ modes: [Mode]) { self.modes = modes }

        func launch(_ url: URL, callbackPrefix: String) async -> ExternalBrowserOutcome {
            launched.append((url, callbackPrefix))
            let mode = modes.isEmpty ? .closed : modes.removeFirst()
            guard mode != .closed else { return .closed }
            guard let page = try? await SignInPage.load(url.absoluteString),
                let signedIn = try? await page.post(userName: "demouser", password: "Password1"),
                let location = signedIn.header("Location").flatMap(URL.init(string:))
            else { return .closed }
            redirect = location
            switch mode {
            case .catchesRedirect: return .returned(location)
            case .returnsThroughApp: return .returnsThroughApp
            case .returnsForeign:
                return .returned(URL(string: "evil://haapi?" + (location.query ?? "")) ?? location)
            case .closed: return .closed
            }
        }
    }

    func externalBrowserStep(_ browser: PlayedBrowser) async throws -> HaapiFlowViewModel {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(browser: browser))
        await viewModel.start()
        try await viewModel.selectAuthenticator("browser")
        guard case .clientOperation(let operation)? = viewModel.uiModel?.content,
            operation.name == "external-browser-flow"
        else { throw UITestFailure("no external-browser step") }
        return viewModel
    }

    @Test("an in-app session's return resumes the flow; the flow's own deep-link manager waited, not the shared one")
    func caughtByTheSession() async throws {
        let browser = PlayedBrowser([.catchesRedirect])
        let viewModel = try await externalBrowserStep(browser)
        let deepLinks = HaapiDeepLinkManager()
        #expect(await viewModel.openExternalBrowser(deepLinks: deepLinks))
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        let launched = try #require(await browser.launched.first)
        #expect(launched.prefix == "app://haapi")
        #expect(launched.url.query?.contains("redirect_uri=app") == true)
        // Nothing waits any more: the same URL again is left to the app.
        let redirect = try #require(await browser.redirect)
        #expect(!deepLinks.handle(url: redirect))
        await viewModel.close()
    }

    @Test("the system browser: the redirect reaches the app's URL handler, which hands it to the flow")
    func returnsThroughTheApp() async throws {
        let browser = PlayedBrowser([.returnsThroughApp])
        let viewModel = try await externalBrowserStep(browser)
        let deepLinks = HaapiDeepLinkManager()
        #expect(await viewModel.openExternalBrowser(deepLinks: deepLinks))
        #expect(viewModel.oAuthModel == nil)
        let redirect = try #require(await browser.redirect)
        #expect(!deepLinks.handle(url: URL(string: "other://app")!))
        #expect(deepLinks.handle(url: redirect))
        try await viewModel.wait { viewModel.oAuthModel is OAuthTokenModel }
        await viewModel.close()
    }

    @Test("a page closed without a return leaves the step, nothing waiting; it can be opened again")
    func closedThenAgain() async throws {
        let browser = PlayedBrowser([.closed, .catchesRedirect])
        let viewModel = try await externalBrowserStep(browser)
        let deepLinks = HaapiDeepLinkManager()
        let step = viewModel.revision
        #expect(!(await viewModel.openExternalBrowser(deepLinks: deepLinks)))
        #expect(viewModel.revision == step)
        #expect(viewModel.error == nil)
        #expect(!deepLinks.handle(url: URL(string: "app://haapi?_resume_nonce=x")!))
        #expect(await viewModel.openExternalBrowser(deepLinks: deepLinks))
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        #expect(await browser.launched.count == 2)
        await viewModel.close()
    }

    @Test("a URL that is not the app's redirect resumes nothing, even with a valid nonce, from a launcher or directly")
    func foreignReturn() async throws {
        let browser = PlayedBrowser([.returnsForeign])
        let viewModel = try await externalBrowserStep(browser)
        let step = viewModel.revision
        #expect(!(await viewModel.openExternalBrowser(deepLinks: HaapiDeepLinkManager())))
        #expect(viewModel.revision == step)
        #expect(viewModel.oAuthModel == nil)
        #expect(viewModel.error == nil)
        // The public entry point refuses it too; the same nonce behind the app's redirect URI then resumes.
        let redirect = try #require(await browser.redirect)
        let query = redirect.query ?? ""
        for foreign in ["evil://haapi?", "app://haapievil?", "https://attacker.example/app://haapi?"] {
            #expect(!(await viewModel.resumeExternalBrowser(with: try #require(URL(string: foreign + query)))))
        }
        #expect(viewModel.revision == step)
        #expect(await viewModel.resumeExternalBrowser(with: redirect))
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        await viewModel.close()
    }

    @Test("without a launcher (Linux's default) nothing opens and the renderer shows the link")
    func noLauncher() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application())
        await viewModel.start()
        try await viewModel.selectAuthenticator("browser")
        #expect(viewModel.haapiUIKitApplication.haapiUIKitConfiguration.externalBrowserLauncher == nil)
        let deepLinks = HaapiDeepLinkManager()
        #expect(!(await viewModel.openExternalBrowser(deepLinks: deepLinks)))
        guard case .clientOperation(let operation)? = viewModel.uiModel?.content else {
            Issue.record("the step went away")
            return
        }
        #expect(operation.launchURL != nil)
        await viewModel.close()
    }

    /// The page opened twice: the first launch is still open when the second begins, and is closed by it.
    actor ReopenedBrowser: ExternalBrowserLauncher {
        private var firstOpen: CheckedContinuation<Void, Never>?
        private(set) var launches = 0
        private(set) var redirect: URL?

        func launch(_ url: URL, callbackPrefix: String) async -> ExternalBrowserOutcome {
            launches += 1
            if launches == 1 {
                await withCheckedContinuation { firstOpen = $0 }
                return .closed
            }
            guard let page = try? await SignInPage.load(url.absoluteString),
                let signedIn = try? await page.post(userName: "demouser", password: "Password1"),
                let location = signedIn.header("Location").flatMap(URL.init(string:))
            else { return .closed }
            redirect = location
            // Opening the page again closes the first one, which reports it closed after this launch began.
            firstOpen?.resume()
            firstOpen = nil
            return .returnsThroughApp
        }
    }

    @Test("a page opened again: the first one's close leaves the second's wait for the redirect in place")
    func reopened() async throws {
        let browser = ReopenedBrowser()
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(browser: browser))
        await viewModel.start()
        try await viewModel.selectAuthenticator("browser")
        let deepLinks = HaapiDeepLinkManager()
        let first = Task { await viewModel.openExternalBrowser(deepLinks: deepLinks) }
        for _ in 0..<200 where await browser.launches == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(await viewModel.openExternalBrowser(deepLinks: deepLinks))
        #expect(!(await first.value))
        let redirect = try #require(await browser.redirect)
        #expect(deepLinks.handle(url: redirect), "the first page's close cancelled the second's wait")
        try await viewModel.wait { viewModel.oAuthModel is OAuthTokenModel }
        await viewModel.close()
    }
}
