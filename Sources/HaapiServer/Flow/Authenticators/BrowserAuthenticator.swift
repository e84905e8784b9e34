import Foundation
import HaapiDriver
import HaapiModel
import Hummingbird

extension AuthenticatorRoutes {
    /// External browser flow: the app opens the server's own login page; after sign-in the page sends
    /// the browser to the app's redirect URI with `_resume_nonce`, which the app posts back.
    func browserAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async -> Response {
        let caller = input.caller
        guard let session = caller.session else {
            return problem(caller, Representation.problem(.unexpectedProblem, title: "No flow session"))
        }
        switch (input.method, input.action) {
        case ("GET", nil):
            let page = session.browser?.pageToken ?? SecureRandom.token(byteCount: 24)
            await flows.update(session.id) {
                $0.browser = FlowSession.BrowserLogin(pageToken: page, resumeNonce: nil, username: nil)
            }
            let operation: JSONValue = [
                "template": "client-operation", "kind": "login", "title": .string(authenticator.title),
                "model": [
                    "name": "external-browser-flow",
                    "arguments": ["href": .string(url(Paths.browser + "/" + page))],
                    "continueActions": [
                        Representation.form(
                            kind: "continue", title: "Continue", href: authenticatorURL(authenticator, "resume"),
                            method: "GET",
                            fields: [Representation.field("_resume_nonce", type: "context")])
                    ],
                ],
            ]
            return representation(
                caller,
                Representation.step(
                    "authentication-step", viewName: "authenticator/external-browser/launch",
                    actions: [
                        operation,
                        Representation.form(
                            kind: "cancel", title: "Cancel", href: url(Paths.authenticate), method: "GET"),
                    ]))
        case ("GET", "resume"), ("POST", "resume"):
            let nonce = input.query["_resume_nonce"] ?? input.form["_resume_nonce"] ?? ""
            guard let browser = session.browser, let expected = browser.resumeNonce, let username = browser.username,
                ConstantTime.equals(nonce, expected)
            else {
                return problem(
                    caller,
                    Representation.problem(.authenticationFailedProblem, title: "The browser sign-in did not complete"))
            }
            return await completeAuthentication(caller, username: username)
        default:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
    }

    func addBrowserPageRoutes(to router: Router<ServerRequestContext>) {
        router.get(RouterPath(stringLiteral: Paths.browser + "/:page")) { request, context in
            await self.browserPage(request, page: context.parameters.get("page") ?? "", error: nil)
        }
        router.post(RouterPath(stringLiteral: Paths.browser + "/:page")) { request, context in
            await self.browserLogin(request, page: context.parameters.get("page") ?? "")
        }
    }

    /// The plain HTML login page the system browser shows.
    private func browserPage(_ request: Request, page: String, error: String?) async -> Response {
        guard let session = await flows.session(forBrowserPage: page, now: clock()) else {
            return HTTP.body(
                "<!doctype html><p>This sign-in link has expired.</p>", contentType: "text/html; charset=utf-8",
                status: .notFound)
        }
        let redirect = HTTP.query(request)["redirect_uri"] ?? session.redirectURI
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>Sign in</title></head><body><h1>Sign in to \(Self.escapeHTML(session.clientID))</h1>
            \(error.map { "<p role=\"alert\">\(Self.escapeHTML($0))</p>" } ?? "")
            <form method="post"><input type="hidden" name="redirect_uri" value="\(Self.escapeHTML(redirect))">
            <label>Username <input name="userName" autocomplete="username"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password"></label>
            <button type="submit">Sign in</button></form></body></html>
            """
        return HTTP.body(
            html, contentType: "text/html; charset=utf-8",
            headers: [.contentSecurityPolicy: "default-src 'none'; form-action 'self'", .xFrameOptionsHeader: "DENY"])
    }

    private func browserLogin(_ incoming: Request, page: String) async -> Response {
        var request = incoming
        let now = clock()
        guard let session = await flows.session(forBrowserPage: page, now: now),
            let client = clients.client(id: session.clientID),
            let form = try? await HTTP.form(&request, limit: configuration.security.maxRequestBytes)
        else {
            return HTTP.body(
                "<!doctype html><p>This sign-in link has expired.</p>", contentType: "text/html; charset=utf-8",
                status: .notFound)
        }
        // Only a registered redirect URI may receive the nonce; anything else would leak it.
        let redirect = form["redirect_uri"] ?? session.redirectURI
        guard client.configuration.redirectURIs.contains(redirect) else {
            return HTTP.body(
                "<!doctype html><p>Unregistered redirect URI.</p>", contentType: "text/html; charset=utf-8",
                status: .badRequest)
        }
        switch await checkPassword(username: form["userName"] ?? "", password: form["password"] ?? "") {
        case .success(let user):
            let nonce = SecureRandom.token(byteCount: 24)
            await flows.update(session.id) { flow in
                flow.browser?.resumeNonce = nonce
                flow.browser?.username = user.username
            }
            let separator = redirect.contains("?") ? "&" : "?"
            return HTTP.redirect(to: redirect + separator + FormURLEncoding.encode([("_resume_nonce", nonce)]))
        case .locked:
            return await browserPage(request, page: page, error: "Too many failed attempts; try again later.")
        case .incorrect:
            return await browserPage(request, page: page, error: "Incorrect username or password.")
        case .busy:
            return await browserPage(request, page: page, error: "The server is busy; try again in a moment.")
        }
    }

    static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
