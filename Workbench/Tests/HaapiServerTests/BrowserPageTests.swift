import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRawClient
import Testing

@testable import HaapiServer

/// The external-browser sign-in page as a browser sees it: one browser's cookie and form, the headers of
/// every page, and posts from other sites refused before anything is checked. (Chromium itself runs these
/// pages in Tests/Browser; raw HTTP cannot enforce CSP, so this suite checks what the server sends.)
@Suite("Browser sign-in page: CSRF binding, page headers")
struct BrowserPageTests {
    typealias LoadedPage = SignInPage

    static func browserStep(_ device: HaapiDevice) async throws -> (RawResponse, URL) {
        let launch = try await device.startAuthenticator("browser")
        let step = try #require(try AuthenticatorTests.step(launch) as? ExternalBrowserClientOperationStep)
        return (launch, try #require(step.urlToLaunch(redirectTo: "app://haapi")))
    }

    static func expectPageHeaders(_ response: RawResponse, _ what: String) {
        #expect(response.contentType == "text/html", "\(what): content type")
        #expect(response.text.contains("<title>") && !response.text.contains("<title></title>"), "\(what): title")
        let policy = response.header("Content-Security-Policy") ?? ""
        #expect(policy.contains("frame-ancestors 'none'") && policy.contains("default-src 'none'"), "\(what): CSP")
        #expect(response.header("Referrer-Policy") == "no-referrer", "\(what): Referrer-Policy")
        #expect(response.header("X-Content-Type-Options") == "nosniff", "\(what): nosniff")
        #expect(response.header("Cache-Control") == "no-store", "\(what): Cache-Control")
    }

    @Test(
        "the page sets an HttpOnly SameSite=Strict cookie, binds its form to it, allows the app's scheme in form-action"
    )
    func pageBinding() async throws {
        let server = try await TestServer.shared.get()
        let device = try await AuthenticatorTests.device(server)
        let (_, url) = try await Self.browserStep(device)
        let page = try await LoadedPage.load(url.absoluteString)
        Self.expectPageHeaders(page.response, "sign-in page")
        let setCookie = try #require(page.response.header("Set-Cookie"))
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
        #expect(page.response.header("Content-Security-Policy")?.contains("form-action 'self' app:") == true)
        #expect(page.response.text.contains("Sign in to the swift-haapi demo app"))
        #expect(page.response.text.components(separatedBy: " required").count - 1 == 2)
        // A second load in the same browser keeps its cookie, so two open tabs both work.
        let again = try await LoadedPage.load(url.absoluteString, cookie: page.cookie)
        #expect(again.response.header("Set-Cookie") == nil && again.csrf == page.csrf)
    }

    @Test(
        "wrong password keeps the user name; the right one answers 303 to the app's URI; Origin null from the page itself is accepted"
    )
    func wrongThenRight() async throws {
        let server = try await TestServer.shared.get()
        let device = try await AuthenticatorTests.device(server)
        let (launch, url) = try await Self.browserStep(device)
        let page = try await LoadedPage.load(url.absoluteString)
        let wrong = try await page.post(userName: "demouser", password: "nope")
        #expect(wrong.status == 200 && wrong.text.contains("Incorrect username or password"))
        #expect(wrong.text.contains("value=\"demouser\""))
        Self.expectPageHeaders(wrong, "wrong-password page")
        // Chromium under Referrer-Policy: no-referrer sends Origin: null on the page's own post.
        let signedIn = try await page.post(
            userName: "demouser", password: "Password1",
            headers: [("Sec-Fetch-Site", "same-origin"), ("Origin", "null")])
        #expect(signedIn.status == 303)
        let location = try #require(signedIn.header("Location").flatMap(URL.init(string:)))
        #expect(location.absoluteString.hasPrefix("app://haapi?_resume_nonce="))
        let step = try #require(try AuthenticatorTests.step(launch) as? ExternalBrowserClientOperationStep)
        let parameters = try #require(step.formattedParametersFromURL(location))
        let resumed = try await device.submit(
            launch.json["actions"]?[0]?["model"]?["continueActions"]?[0], parameters.map { ($0.key, $0.value) })
        #expect(try AuthenticatorTests.step(resumed) is RedirectionStep)
    }

    /// The forged posts of issue 30: each is refused with a page that says why, and changes nothing.
    static let forgeries: [(String, cookie: Bool, csrf: Bool, headers: [(String, String)])] = [
        ("another origin", true, true, [("Sec-Fetch-Site", "cross-site"), ("Origin", "https://evil.example")]),
        ("another site's subdomain", true, true, [("Sec-Fetch-Site", "same-site"), ("Origin", "http://a.localhost")]),
        ("a data: URL", true, true, [("Sec-Fetch-Site", "cross-site"), ("Origin", "null")]),
        ("a client without Sec-Fetch-Site, other Origin", true, true, [("Origin", "https://evil.example")]),
        ("no cookie (another browser)", false, true, [("Sec-Fetch-Site", "same-origin")]),
        ("a form field from another page", true, false, [("Sec-Fetch-Site", "same-origin")]),
    ]

    @Test("forged posts are refused with a 403 page, count no attempt and issue no nonce", arguments: forgeries.indices)
    func forgedPost(index: Int) async throws {
        let forgery = Self.forgeries[index]
        var configuration = try TestConfiguration.make()
        configuration.users.append(
            UserConfiguration(username: "victim", passwordHash: ServerConfiguration.demoPasswordHash))
        configuration.security.maxFailedLogins = 2
        let server = try await TestServer(configuration: configuration)
        let device = try await AuthenticatorTests.device(server)
        let (_, url) = try await Self.browserStep(device)
        let page = try await LoadedPage.load(url.absoluteString)
        let pageToken = url.lastPathComponent

        for password in ["wrong-1", "wrong-2", "wrong-3", "Password1"] {
            let forged = try await page.post(
                userName: "victim", password: password, csrf: forgery.csrf ? nil : String(page.csrf.reversed()),
                cookie: forgery.cookie ? nil : .some(nil), headers: forgery.headers)
            #expect(forged.status == 403, "\(forgery.0)")
            #expect(forged.text.contains("was not accepted") && forged.header("Location") == nil, "\(forgery.0)")
            Self.expectPageHeaders(forged, "refusal page")
        }
        let flow = await server.server.flows.session(forBrowserPage: pageToken, now: server.clock.now)
        guard case .browser(let browser)? = flow?.currentStep?.progress else {
            Issue.record("the flow left the browser step (\(forgery.0))")
            return
        }
        #expect(browser.proven == nil, "no nonce was issued (\(forgery.0))")
        // Three wrong passwords would have locked the account (maxFailedLogins 2): none was counted.
        let genuine = try await page.post(userName: "victim", password: "Password1")
        #expect(genuine.status == 303, "\(forgery.0): \(genuine.text)")
        await server.stop()
    }

    @Test("expired links and unregistered redirects get titled pages with the protective headers")
    func errorPages() async throws {
        let server = try await TestServer.shared.get()
        let expired = try await RawHTTP.send("GET", server.base + "/authn/browser/no-such-page")
        #expect(expired.status == 404 && expired.text.contains("expired"))
        Self.expectPageHeaders(expired, "expired link")
        let expiredPost = try await RawHTTP.form(server.base + "/authn/browser/no-such-page", [("userName", "x")])
        #expect(expiredPost.status == 404)
        Self.expectPageHeaders(expiredPost, "expired link (post)")

        let device = try await AuthenticatorTests.device(server)
        let (_, url) = try await Self.browserStep(device)
        let page = try await LoadedPage.load(url.absoluteString)
        let evil = try await page.post(userName: "demouser", password: "Password1", redirect: "https://evil.example")
        #expect(evil.status == 400 && evil.header("Location") == nil)
        Self.expectPageHeaders(evil, "unregistered redirect")
    }

    @Test("form-action sources: an app scheme, a web origin, and nothing for a URI that would inject a directive")
    func formTargets() {
        #expect(FormTargetSource.source(for: "app://haapi") == "app:")
        #expect(FormTargetSource.source(for: "com.example.App:/callback") == "com.example.app:")
        #expect(FormTargetSource.source(for: "https://Example.com:8443/cb?x=1") == "https://example.com:8443")
        #expect(FormTargetSource.source(for: "bad;script-src:x") == nil)
        #expect(FormTargetSource.source(for: "https://a b;x/") == nil)
        #expect(FormTargetSource.source(for: "1app://x") == nil)
        #expect(FormTargetSource.source(for: "no-colon") == nil)
    }
}
