import Foundation
@_spi(Tooling) import HaapiDriver
import Hummingbird

/// The sign-in page of the external-browser authenticator: what the system browser shows, and its post.
extension AuthenticatorRoutes {
    func addBrowserPageRoutes(to router: Router<ServerRequestContext>) {
        // A failure of the database is thrown to the router: logged, and answered 500.
        router.get(RouterPath(stringLiteral: Paths.browser + "/:page")) { request, context in
            try await self.browserPage(request, page: context.parameters.get("page") ?? "")
        }
        router.post(RouterPath(stringLiteral: Paths.browser + "/:page")) { request, context in
            try await self.browserLogin(request, page: context.parameters.get("page") ?? "")
        }
    }

    /// The form, with the redirect URI it will send the browser to, the user name typed so far and the
    /// error of the last try.
    private func browserPage(
        _ request: Request, page: String, userName: String = "", error: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        guard let session = await flows.session(forBrowserPage: page, now: clock()) else {
            return expiredLinkPage()
        }
        let client = try await clients.client(id: session.clientID)?.configuration
        let redirect = HTTP.query(request)["redirect_uri"] ?? session.redirectURI
        let binding = browserForms.bind(
            request, page: page, cookiePath: issuerPath + Paths.browser + "/", secure: scheme == "https")
        let name = client?.displayName ?? session.clientID
        // A later step of a login: the name the login started with, filled in.
        let userName = userName.isEmpty ? (session.subject ?? "") : userName
        let alert: HTML = error.map { "<p class=\"error\" role=\"alert\">\($0)</p>\n" } ?? ""
        let focusName: HTML = userName.isEmpty ? " autofocus" : ""
        let focusPassword: HTML = userName.isEmpty ? "" : " autofocus"
        let content: HTML = """
            <h1>Sign in to \(name)</h1>
            \(alert)<form method="post">
            <input type="hidden" name="\(BrowserFormGuard.fieldName)" value="\(binding.field)">
            <input type="hidden" name="redirect_uri" value="\(redirect)">
            <label for="userName">Username</label>
            <input id="userName" name="userName" autocomplete="username" autocapitalize="none" spellcheck="false" required value="\(userName)"\(focusName)>
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required\(focusPassword)>
            <button type="submit">Sign in</button>
            </form>
            <p class="hint">After you sign in, this browser takes you back to the app.</p>
            """
        var headers: HTTPFields = [:]
        if let cookie = binding.setCookie { headers[.setCookie] = cookie }
        // The post is answered with a redirect to the app's URI: CSP's form-action must allow it.
        let targets = (client?.redirectURIs ?? [session.redirectURI]).compactMap(FormTargetSource.source(for:))
        return HTMLPage(
            title: "Sign in – \(name)", content: content, status: status, formTargets: Array(Set(targets)).sorted(),
            headers: headers, basePath: issuerPath
        ).response()
    }

    private func browserLogin(_ incoming: Request, page: String) async throws -> Response {
        var request = incoming
        guard let session = await flows.session(forBrowserPage: page, now: clock()),
            let client = try await clients.client(id: session.clientID)
        else {
            return expiredLinkPage()
        }
        guard let form = try? await HTTP.form(&request, limit: configuration.security.maxRequestBytes) else {
            return try await browserPage(
                request, page: page, error: "The form could not be read; try again.", status: .badRequest)
        }
        // Checked before anything else: a forged post counts no attempt and issues no nonce.
        if let reason = browserForms.refusal(request, form: form, page: page, serverOrigin: issuerOrigin) {
            return HTMLPage.message(
                title: "Sign-in refused", heading: "This sign-in was not accepted",
                text:
                    "The form was not sent from this server's own sign-in page: \(reason). Nothing was checked or changed. Open the sign-in page again and sign in there.",
                next: ("Open the sign-in page", issuerPath + Paths.browser + "/" + page), status: .forbidden,
                basePath: issuerPath
            ).response()
        }
        // Only a registered redirect URI may receive the nonce; anything else would leak it.
        let redirect = form["redirect_uri"] ?? session.redirectURI
        guard client.configuration.redirectURIs.contains(redirect) else {
            return HTMLPage.message(
                title: "Unregistered redirect URI", heading: "This app address is not registered",
                text:
                    "The sign-in page was asked to return to an address the app did not register, so it will not send your sign-in there. Start the sign-in again from the app.",
                next: nil, status: .badRequest, basePath: issuerPath
            ).response()
        }
        let userName = form["userName"] ?? ""
        // A later step of a login signs in the user an earlier one identified; another name is refused before
        // any password is checked.
        if let subject = session.subject, userName != subject {
            return try await browserPage(
                request, page: page, userName: userName,
                error: "Sign in as the account this sign-in started with.", status: .badRequest)
        }
        guard let serial = session.currentStep?.serial else { return expiredLinkPage() }
        switch try await checkPassword(username: userName, password: form["password"] ?? "") {
        case .success(let user):
            let nonce = SecureRandom.token(byteCount: 24)
            let proven = await flows.updateProgress(session.id, serial: serial) { progress -> Bool in
                guard case .browser(var browser) = progress, browser.pageToken == page else { return false }
                browser.proven = (nonce, user.username)
                progress = .browser(browser)
                return true
            }
            guard proven == true else { return expiredLinkPage() }
            let separator = redirect.contains("?") ? "&" : "?"
            // 303: the app's URI is fetched with GET, whatever the form's method was (RFC 9110 §15.4.4).
            return Response(
                status: .seeOther,
                headers: [
                    .location: redirect + separator + FormURLEncoding.encode([("_resume_nonce", nonce)]),
                    .cacheControl: "no-store", .referrerPolicy: "no-referrer",
                ])
        case .locked:
            return try await browserPage(
                request, page: page, userName: userName, error: "Too many failed attempts; try again later.")
        case .incorrect:
            return try await browserPage(
                request, page: page, userName: userName, error: "Incorrect username or password.")
        case .busy:
            return try await browserPage(
                request, page: page, userName: userName, error: "The server is busy; try again in a moment.")
        }
    }

    private func expiredLinkPage() -> Response {
        HTMLPage.message(
            title: "Sign-in link expired", heading: "This sign-in link has expired",
            text:
                "Sign-in links work for a few minutes and for one sign-in. Go back to the app and start the sign-in again; it opens a new link.",
            next: nil, status: .notFound, basePath: issuerPath
        ).response()
    }
}
