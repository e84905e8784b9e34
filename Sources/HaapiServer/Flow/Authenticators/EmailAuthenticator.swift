import Foundation
import HaapiDriver
import HaapiModel
import Hummingbird

extension AuthenticatorRoutes {
    /// One-time code by e-mail: the code goes to the outbox; it expires; resending answers with a
    /// continue-same-step. Wrong codes count per account (the security settings' `maxFailedLogins` within
    /// `lockoutSeconds`): neither a new code, a resend nor a new flow resets the count. Unknown names get the
    /// same steps, the same lockout and a recipient line that only repeats what was typed.
    func emailAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws -> Response {
        let caller = input.caller
        guard let session = caller.session else {
            return noFlowSession(caller)
        }
        switch (input.method, input.action) {
        case ("GET", nil):
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
            await sendCode(to: user, attemptName: user?.username ?? identifier.lowercased(), session: session)
            return representation(caller, codeStep(authenticator, typed: identifier))
        case ("POST", "resend"):
            guard let challenge = session.email else {
                return problem(caller, Representation.problem(.unexpectedProblem, title: "No code was requested"))
            }
            var user: StoredUser?
            if let username = challenge.username { user = try await store.user(named: username) }
            await sendCode(to: user, attemptName: challenge.attemptName, session: session)
            return representation(
                caller,
                Representation.step(
                    "continue-same-step", viewName: "authenticator/email/enter-otp/resent",
                    messages: [Representation.message("A new code has been sent")]))
        case ("POST", "verify"):
            guard let challenge = session.email else {
                return problem(caller, Representation.problem(.unexpectedProblem, title: "No code was requested"))
            }
            let missing = missingFields(["otp"], in: input.form)
            guard missing.isEmpty else { return problem(caller, Representation.invalidInput(missing)) }
            guard challenge.expiresAt > clock() else {
                await flows.update(session.id) { $0.email = nil }
                return problem(
                    caller,
                    Representation.problem(
                        .authenticationFailedProblem, title: "The code has expired; ask for a new one"))
            }
            let isAccount = challenge.username != nil
            let tooMany = Representation.problem(
                .tooManyAttemptsProblem, title: "Too many wrong codes; try again later")
            guard try await !isLocked(challenge.attemptName, isAccount: isAccount, for: .emailCode) else {
                await flows.update(session.id) { $0.email = nil }
                return problem(caller, tooMany)
            }
            guard let username = challenge.username,
                ConstantTime.equals(TokenHash.of(input.form["otp"] ?? ""), challenge.codeHash)
            else {
                if try await recordFailure(challenge.attemptName, isAccount: isAccount, for: .emailCode) {
                    await flows.update(session.id) { $0.email = nil }
                    return problem(caller, tooMany)
                }
                return problem(caller, Representation.problem(.incorrectCredentialsProblem, title: "Incorrect code"))
            }
            try await clearFailures(username, for: .emailCode)
            return await completeAuthentication(caller, username: username)
        default:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
    }

    /// Unknown users get a challenge too (that no code can satisfy), so the answer does not reveal accounts.
    private func sendCode(to user: StoredUser?, attemptName: String, session: FlowSession) async {
        // Int.random uses SystemRandomNumberGenerator, the system CSPRNG.
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
        let expiry = clock().addingTimeInterval(TimeInterval(configuration.lifetimes.emailCode))
        let codeHash = user == nil ? TokenHash.of(SecureRandom.token()) : TokenHash.of(code)
        await flows.update(session.id) { flow in
            flow.email = FlowSession.EmailChallenge(
                username: user?.username, attemptName: attemptName, codeHash: codeHash, expiresAt: expiry)
        }
        if let user, let email = user.email {
            await outbox.send(
                .init(
                    to: email, username: user.username, subject: "Your sign-in code",
                    body: "Your code is \(code). It expires in \(configuration.lifetimes.emailCode / 60) minutes.",
                    code: code, sentAt: clock()))
        }
    }

    /// The recipient line depends only on what was typed: an e-mail address is shown masked, a username
    /// is not turned into the account's address (which would tell that the account exists).
    private func codeStep(_ authenticator: AuthenticatorConfiguration, typed: String) -> JSONValue {
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
            links: [Representation.link(authenticatorURL(authenticator), rel: "restart", title: "Use another account")],
            messages: [Representation.message("If the account exists, a code was sent to \(recipient)")],
            properties: ["recipientOfCommunication": .string(recipient)])
    }

    static func maskEmail(_ email: String?) -> String {
        guard let email, let at = email.firstIndex(of: "@") else { return "your e-mail address" }
        let local = email[..<at]
        return String(local.prefix(1)) + String(repeating: "*", count: max(local.count - 1, 3)) + email[at...]
    }
}
