import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Hummingbird

extension AuthenticatorRoutes {
    /// External browser flow: the app opens the server's own login page; after sign-in the page sends
    /// the browser to the app's redirect URI with `_resume_nonce`, which the app posts back.
    func browserAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws -> Response {
        let caller = input.caller
        switch (input.method, input.action) {
        case ("GET", nil):
            let page = input.progress.browserPage ?? SecureRandom.token(byteCount: 24)
            let opened = StepProgress.browser(.init(pageToken: page, proven: nil))
            guard await flows.updateProgress(input.session.id, serial: input.step.serial, { $0 = opened }) != nil else {
                return stepRefused(caller, .stale, asked: input.authenticatorID)
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
            guard case .browser(let browser) = input.progress, let proven = browser.proven,
                ConstantTime.equals(nonce, proven.resumeNonce)
            else {
                return problem(
                    caller,
                    Representation.problem(.authenticationFailedProblem, title: "The browser sign-in did not complete"))
            }
            return await completeStep(input, username: proven.username)
        default:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
    }
}
