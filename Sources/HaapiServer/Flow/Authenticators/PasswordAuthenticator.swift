import Foundation
import HaapiModel
import Hummingbird

extension DevServer {
    /// Username and password: login, account creation (a registration step) and a forgot-password path.
    func passwordAuthenticator(_ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest) async -> Response {
        let caller = input.caller
        switch (input.method, input.action) {
        case ("GET", nil):
            return representation(caller, loginStep(authenticator))
        case ("POST", nil):
            let missing = missingFields(["userName", "password"], in: input.form)
            guard missing.isEmpty else { return problem(caller, Representation.invalidInput(missing)) }
            return await passwordCheckResponse(caller, checkPassword(username: input.form["userName"] ?? "", password: input.form["password"] ?? ""))
        case ("GET", "register"):
            return representation(caller, Representation.step(
                "registration-step", viewName: "authenticator/html-form/create-account/get",
                actions: [Representation.form(
                    kind: "user-register", title: "Create account", href: authenticatorURL(authenticator, "register"),
                    fields: [
                        Representation.field("userName", type: "username", label: "Username"),
                        Representation.field("password", type: "password", label: "Password", extra: ["minLength": 8]),
                        Representation.field("email", type: "text", label: "E-mail", extra: ["kind": "email"]),
                        Representation.field("name", type: "text", label: "Full name", extra: ["required": false]),
                    ],
                    actionTitle: "Create account")],
                links: [Representation.link(authenticatorURL(authenticator), rel: "login", title: "Back to sign in")]))
        case ("POST", "register"):
            return await register(authenticator, input)
        case ("GET", "forgot-password"):
            return representation(caller, Representation.step(
                "authentication-step", viewName: "authenticator/html-form/reset-password/get",
                actions: [Representation.form(
                    kind: "password-reset", title: "Reset your password", href: authenticatorURL(authenticator, "forgot-password"),
                    fields: [Representation.field("userName", type: "username", label: "Username")], actionTitle: "Send reset link")]))
        case ("POST", "forgot-password"):
            let username = input.form["userName"] ?? ""
            if let user = try? store.user(named: username), let email = user.email {
                await outbox.send(.init(to: email, username: username, subject: "Reset your password",
                                        body: "Someone asked to reset the password of \(username). This dev server does not reset passwords.",
                                        code: nil, sentAt: clock()))
            }
            // The same answer whether or not the account exists.
            return representation(caller, Representation.step(
                "authentication-step", viewName: "authenticator/html-form/reset-password/post",
                links: [Representation.link(authenticatorURL(authenticator), rel: "restart", title: "Back to sign in")],
                messages: [Representation.message("If the account exists, a message with instructions has been sent.")]))
        default:
            return problem(caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
    }

    private func loginStep(_ authenticator: AuthenticatorConfiguration) -> JSONValue {
        Representation.step(
            "authentication-step", viewName: "authenticator/html-form/authenticate/get",
            actions: [Representation.form(
                kind: "login", title: "Login", href: authenticatorURL(authenticator),
                fields: [
                    Representation.field("userName", type: "username", label: "Username"),
                    Representation.field("password", type: "password", label: "Password"),
                ],
                actionTitle: "Login")],
            links: [
                Representation.link(authenticatorURL(authenticator, "forgot-password"), rel: "forgot-password", title: "Forgot your password?"),
                Representation.link(authenticatorURL(authenticator, "register"), rel: "register-create", title: "Create account"),
            ])
    }

    private func register(_ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest) async -> Response {
        let caller = input.caller
        var invalid = missingFields(["userName", "password", "email"], in: input.form)
        let username = input.form["userName"] ?? ""
        let password = input.form["password"] ?? ""
        let email = input.form["email"] ?? ""
        if !password.isEmpty, password.count < 8 { invalid.append(("password", "invalidValue", "Use at least 8 characters")) }
        if !email.isEmpty, !email.contains("@") { invalid.append(("email", "invalidValue", "Enter an e-mail address")) }
        if !username.isEmpty, (try? store.user(named: username)) != nil { invalid.append(("userName", "invalidValue", "This username is taken")) }
        guard invalid.isEmpty else { return problem(caller, Representation.invalidInput(invalid)) }
        do {
            let name = input.form["name"].flatMap { $0.isEmpty ? nil : $0 }
            let created = try store.insertUser(
                StoredUser(username: username, passwordHash: passwords.hash(password), email: email, name: name), now: clock())
            guard created else { return problem(caller, Representation.invalidInput([("userName", "invalidValue", "This username is taken")])) }
        } catch {
            return problem(caller, Representation.problem(.unexpectedProblem, title: "Could not create the account"), status: .internalServerError)
        }
        return await completeAuthentication(caller, username: username)
    }
}
