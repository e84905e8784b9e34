import Foundation
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird

extension AuthenticatorRoutes {
    static let maxUsernameLength = 64

    /// Username and password: login, account creation (a registration step) and a forgot-password path. As a
    /// later step of a login it proves the user an earlier step identified: the name comes filled in, another
    /// name is refused before any password is checked, and no account is created.
    func passwordAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws -> Response {
        let caller = input.caller
        let subject = input.session.subject
        switch (input.method, input.action) {
        case ("GET", nil):
            return representation(caller, loginStep(authenticator, subject: subject))
        case ("POST", nil):
            let missing = missingFields(["userName", "password"], in: input.form)
            guard missing.isEmpty else { return problem(caller, Representation.invalidInput(missing)) }
            let username = input.form["userName"] ?? ""
            if let subject, username != subject { return stepRefused(caller, .otherUser, asked: input.authenticatorID) }
            return await passwordCheckResponse(
                input, try await checkPassword(username: username, password: input.form["password"] ?? ""))
        case (_, "register") where subject != nil:
            return problem(
                caller,
                Representation.problem(
                    .unexpectedProblem, title: "An account cannot be created in the middle of a sign-in"),
                rule: .flowSubject, detail: "\(input.authenticatorID): registration after the login identified its user"
            )
        case ("GET", "register"):
            return representation(
                caller,
                Representation.step(
                    "registration-step", viewName: "authenticator/html-form/create-account/get",
                    actions: [
                        Representation.form(
                            kind: "user-register", title: "Create account",
                            href: authenticatorURL(authenticator, "register"),
                            fields: [
                                Representation.field("userName", type: "username", label: "Username"),
                                Representation.field(
                                    "password", type: "password", label: "Password", extra: ["minLength": 8]),
                                Representation.field("email", type: "text", label: "E-mail", extra: ["kind": "email"]),
                                Representation.field(
                                    "name", type: "text", label: "Full name", extra: ["required": false]),
                            ],
                            actionTitle: "Create account")
                    ],
                    links: [
                        Representation.link(authenticatorURL(authenticator), rel: "login", title: "Back to sign in")
                    ]))
        case ("POST", "register"):
            return try await register(authenticator, input)
        case ("GET", "forgot-password"):
            return representation(
                caller,
                Representation.step(
                    "authentication-step", viewName: "authenticator/html-form/reset-password/get",
                    actions: [
                        Representation.form(
                            kind: "password-reset", title: "Reset your password",
                            href: authenticatorURL(authenticator, "forgot-password"),
                            fields: [Representation.field("userName", type: "username", label: "Username")],
                            actionTitle: "Send reset link")
                    ]))
        case ("POST", "forgot-password"):
            let username = input.form["userName"] ?? ""
            if let user = try await store.user(named: username), let email = user.email {
                await outbox.send(
                    .init(
                        to: email, username: username, subject: "Reset your password",
                        body:
                            "Someone asked to reset the password of \(username). This dev server does not reset passwords.",
                        code: nil, sentAt: clock()))
            }
            // The same answer whether or not the account exists.
            return representation(
                caller,
                Representation.step(
                    "authentication-step", viewName: "authenticator/html-form/reset-password/post",
                    links: [
                        Representation.link(authenticatorURL(authenticator), rel: "restart", title: "Back to sign in")
                    ],
                    messages: [
                        Representation.message("If the account exists, a message with instructions has been sent.")
                    ]))
        default:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
    }

    /// The sign-in form; with the login's user known, its name filled in and no way to create another account.
    private func loginStep(_ authenticator: AuthenticatorConfiguration, subject: String?) -> JSONValue {
        var links = [
            Representation.link(
                authenticatorURL(authenticator, "forgot-password"), rel: "forgot-password",
                title: "Forgot your password?")
        ]
        if subject == nil {
            links.append(
                Representation.link(
                    authenticatorURL(authenticator, "register"), rel: "register-create", title: "Create account"))
        }
        return Representation.step(
            "authentication-step", viewName: "authenticator/html-form/authenticate/get",
            actions: [
                Representation.form(
                    kind: "login", title: "Login", href: authenticatorURL(authenticator),
                    fields: [
                        Representation.field("userName", type: "username", label: "Username", value: subject),
                        Representation.field("password", type: "password", label: "Password"),
                    ],
                    actionTitle: "Login")
            ],
            links: links)
    }

    private func register(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws -> Response {
        let caller = input.caller
        var invalid = missingFields(["userName", "password", "email"], in: input.form)
        let username = input.form["userName"] ?? ""
        let password = input.form["password"] ?? ""
        let email = input.form["email"] ?? ""
        if !password.isEmpty, password.count < 8 {
            invalid.append(("password", "invalidValue", "Use at least 8 characters"))
        }
        if !email.isEmpty, !email.contains("@") { invalid.append(("email", "invalidValue", "Enter an e-mail address")) }
        // What one request can make the server keep is bounded too.
        if username.count > Self.maxUsernameLength {
            invalid.append(("userName", "invalidValue", "Use at most \(Self.maxUsernameLength) characters"))
        }
        if email.count > 254 { invalid.append(("email", "invalidValue", "Use at most 254 characters")) }
        if password.count > 1024 { invalid.append(("password", "invalidValue", "Use at most 1024 characters")) }
        if (input.form["name"] ?? "").count > 128 {
            invalid.append(("name", "invalidValue", "Use at most 128 characters"))
        }
        guard invalid.isEmpty else { return problem(caller, Representation.invalidInput(invalid)) }
        let hasher = passwords
        let hash: String
        switch try? await passwordPool.run({ Result { try hasher.hash(password) } }) {
        case .success(let value)?: hash = value
        case .failure?:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Could not create the account"),
                status: .internalServerError)
        case nil: return await passwordCheckResponse(input, .busy)
        }
        do {
            let name = input.form["name"].flatMap { $0.isEmpty ? nil : $0 }
            // A username may not be another account's e-mail address and the reverse: "username or e-mail"
            // sign-ins must find one account.
            switch try await store.insertUser(
                StoredUser(username: username, passwordHash: hash, email: email, name: name), now: clock())
            {
            case .success: break
            case .failure(.usernameTaken):
                return problem(
                    caller, Representation.invalidInput([("userName", "invalidValue", "This username is taken")]))
            case .failure(.emailTaken):
                return problem(
                    caller,
                    Representation.invalidInput([
                        ("email", "invalidValue", "This e-mail address belongs to another account")
                    ]))
            }
        } catch {
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Could not create the account"),
                status: .internalServerError)
        }
        return await completeStep(input, username: username)
    }
}
