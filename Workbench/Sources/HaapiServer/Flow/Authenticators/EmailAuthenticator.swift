import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Hummingbird

extension AuthenticatorRoutes {
    /// One-time code by e-mail: the code goes to the outbox; it expires; resending answers with a
    /// continue-same-step. Wrong codes count per account (the security settings' `maxFailedLogins` within
    /// `lockoutSeconds`): neither a new code, a resend nor a new flow resets the count. Unknown names get the
    /// same steps, the same lockout and a recipient line that only repeats what was typed. As a later step of
    /// a login, the code goes straight to the user an earlier step identified.
    func emailAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws -> Response {
        let caller = input.caller
        let subject = input.session.subject
        let challenge: StepProgress.EmailChallenge?
        if case .emailCode(let sent) = input.progress { challenge = sent } else { challenge = nil }
        switch (input.method, input.action) {
        case ("GET", nil):
            if let subject {
                let user = try await store.user(named: subject)
                guard await sendCode(to: user, attemptName: subject, input) else {
                    return stepRefused(caller, .stale, asked: input.authenticatorID)
                }
                return representation(caller, codeStep(authenticator, typed: subject, canRestart: false))
            }
            return representation(
                caller,
                Representation.step(
                    "authentication-step", viewName: "authenticator/email/enter-username/index",
                    actions: [
                        Representation.form(
                            kind: "login", title: "Get a code by e-mail", href: authenticatorURL(authenticator),
                            fields: [Representation.field("userName", type: "username", label: "Username or e-mail")],
                            actionTitle: "Send code")
                    ]))
        case ("POST", nil):
            let missing = missingFields(["userName"], in: input.form)
            guard missing.isEmpty else { return problem(caller, Representation.invalidInput(missing)) }
            let identifier = input.form["userName"] ?? ""
            guard identifier.count <= 254 else {
                return problem(caller, Representation.invalidInput([("userName", "invalidValue", "Too long")]))
            }
            // Usernames and e-mail addresses share one namespace (no account's name is another's address).
            var user = try await store.user(named: identifier)
            if user == nil { user = try await store.user(withEmail: identifier) }
            if let subject, user?.username != subject {
                return stepRefused(caller, .otherUser, asked: input.authenticatorID)
            }
            guard await sendCode(to: user, attemptName: user?.username ?? identifier.lowercased(), input) else {
                return stepRefused(caller, .stale, asked: input.authenticatorID)
            }
            return representation(caller, codeStep(authenticator, typed: identifier, canRestart: subject == nil))
        case ("POST", "resend"):
            guard let challenge else {
                return problem(caller, Representation.problem(.unexpectedProblem, title: "No code was requested"))
            }
            var user: StoredUser?
            if let username = challenge.username { user = try await store.user(named: username) }
            guard await sendCode(to: user, attemptName: challenge.attemptName, input) else {
                return stepRefused(caller, .stale, asked: input.authenticatorID)
            }
            return representation(
                caller,
                Representation.step(
                    "continue-same-step", viewName: "authenticator/email/enter-otp/resent",
                    messages: [Representation.message("A new code has been sent")]))
        case ("POST", "verify"):
            guard let challenge else {
                return problem(caller, Representation.problem(.unexpectedProblem, title: "No code was requested"))
            }
            let missing = missingFields(["otp"], in: input.form)
            guard missing.isEmpty else { return problem(caller, Representation.invalidInput(missing)) }
            let serial = input.step.serial
            let forget: @Sendable () async -> Void = { [flows, id = input.session.id] in
                await flows.updateProgress(id, serial: serial) { $0 = .idle }
            }
            guard challenge.expiresAt > clock() else {
                await forget()
                return problem(
                    caller,
                    Representation.problem(
                        .authenticationFailedProblem, title: "The code has expired; ask for a new one"))
            }
            let isAccount = challenge.username != nil
            let tooMany = Representation.problem(
                .tooManyAttemptsProblem, title: "Too many wrong codes; try again later")
            guard try await !isLocked(challenge.attemptName, isAccount: isAccount, for: .emailCode) else {
                await forget()
                return problem(caller, tooMany)
            }
            guard let username = challenge.username,
                ConstantTime.equals(TokenHash.of(input.form["otp"] ?? ""), challenge.codeHash)
            else {
                if try await recordFailure(challenge.attemptName, isAccount: isAccount, for: .emailCode) {
                    await forget()
                    return problem(caller, tooMany)
                }
                return problem(caller, Representation.problem(.incorrectCredentialsProblem, title: "Incorrect code"))
            }
            try await clearFailures(username, for: .emailCode)
            return await completeStep(input, username: username)
        default:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
    }

    /// Unknown users get a challenge too (that no code can satisfy), so the answer does not reveal accounts.
    /// False, and nothing sent, when the flow has left the step meanwhile.
    private func sendCode(to user: StoredUser?, attemptName: String, _ input: AuthenticatorRequest) async -> Bool {
        // Int.random uses SystemRandomNumberGenerator, the system CSPRNG.
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
        let expiry = clock().addingTimeInterval(TimeInterval(configuration.lifetimes.emailCode))
        let codeHash = user == nil ? TokenHash.of(SecureRandom.token()) : TokenHash.of(code)
        let challenge = StepProgress.EmailChallenge(
            username: user?.username, attemptName: attemptName, codeHash: codeHash, expiresAt: expiry)
        guard
            await flows.updateProgress(input.session.id, serial: input.step.serial, { $0 = .emailCode(challenge) })
                != nil
        else { return false }
        if let user, let email = user.email {
            await outbox.send(
                .init(
                    to: email, username: user.username, subject: "Your sign-in code",
                    body: "Your code is \(code). It expires in \(configuration.lifetimes.emailCode / 60) minutes.",
                    code: code, sentAt: clock()))
        }
        return true
    }

    /// The recipient line depends only on what was typed: an e-mail address is shown masked, a username
    /// is not turned into the account's address (which would tell that the account exists).
    private func codeStep(_ authenticator: AuthenticatorConfiguration, typed: String, canRestart: Bool) -> JSONValue {
        let recipient = typed.contains("@") ? Self.maskEmail(typed) : "the e-mail address of the account"
        return Representation.step(
            "authentication-step", viewName: "authenticator/email/enter-otp/index",
            actions: [
                Representation.form(
                    kind: "login", title: "Enter the code", href: authenticatorURL(authenticator, "verify"),
                    fields: [
                        Representation.field(
                            "otp", type: "text", label: "Code",
                            extra: ["kind": "number", "minLength": 6, "maxLength": 6])
                    ],
                    actionTitle: "Sign in"),
                Representation.form(
                    kind: "resend", title: "Send a new code", href: authenticatorURL(authenticator, "resend"),
                    actionTitle: "Resend"),
            ],
            links: canRestart
                ? [Representation.link(authenticatorURL(authenticator), rel: "restart", title: "Use another account")]
                : [],
            messages: [Representation.message("If the account exists, a code was sent to \(recipient)")],
            properties: ["recipientOfCommunication": .string(recipient)])
    }

    static func maskEmail(_ email: String?) -> String {
        guard let email, let at = email.firstIndex(of: "@") else { return "your e-mail address" }
        let local = email[..<at]
        return String(local.prefix(1)) + String(repeating: "*", count: max(local.count - 1, 3)) + email[at...]
    }
}
