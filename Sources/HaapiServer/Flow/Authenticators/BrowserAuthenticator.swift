import Foundation
import HaapiDriver
import HaapiModel
import Hummingbird

extension AuthenticatorRoutes {
    /// External browser flow: the app opens the server's own login page; after sign-in the page sends
    /// the browser to the app's redirect URI with `_resume_nonce`, which the app posts back.
    func browserAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws -> Response {
        let caller = input.caller
        guard let session = caller.session else {
            return noFlowSession(caller)
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
}
