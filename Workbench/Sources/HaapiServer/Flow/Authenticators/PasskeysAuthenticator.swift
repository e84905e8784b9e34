import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird
@_spi(Tooling) import Passkeys

extension AuthenticatorRoutes {
    /// Passkeys in the HAAPI flow: sign in with a discoverable passkey, or (after proving the password)
    /// register one and be signed in by it. The WebAuthn options go out as client operations
    /// (`webauthn-authentication`, `webauthn-registration`); the app posts the credential back as JSON.
    func passkeysAuthenticator(
        _ authenticator: AuthenticatorConfiguration, _ input: AuthenticatorRequest
    ) async throws -> Response {
        let caller = input.caller
        switch (input.method, input.action) {
        case ("GET", nil):
            return representation(
                caller,
                Representation.step(
                    "authentication-step", viewName: "authenticator/passkeys/choose",
                    actions: [
                        Representation.form(
                            kind: "login", title: "Sign in with a passkey",
                            href: authenticatorURL(authenticator, "sign-in"), method: "GET",
                            actionTitle: "Use a passkey"),
                        Representation.form(
                            kind: "register", title: "Create a passkey",
                            href: authenticatorURL(authenticator, "register-start"),
                            fields: [
                                Representation.field("userName", type: "username", label: "Username"),
                                Representation.field("password", type: "password", label: "Password"),
                            ],
                            actionTitle: "Create a passkey"),
                    ],
                    messages: [
                        Representation.message("Sign in with a passkey, or prove your password once to create one.")
                    ]))
        case ("GET", "sign-in"):
            let challenge = Data(SecureRandom.bytes(32))
            let ceremony = StepProgress.passkey(
                .init(kind: .authentication, challenge: challenge, username: nil, userHandle: nil))
            guard await flows.updateProgress(input.session.id, serial: input.step.serial, { $0 = ceremony }) != nil
            else { return stepRefused(caller, .stale, asked: input.authenticatorID) }
            let options = PublicKeyCredentialRequestOptions(
                challenge: challenge, rpId: relyingPartyID, userVerification: "required")
            return clientOperation(
                caller, authenticator, name: "webauthn-authentication", viewName: "authenticator/passkeys/authenticate",
                arguments: ["credentialRequestOptions": ["publicKey": options.json]], continueAction: "assert")
        case ("POST", "register-start"):
            let missing = missingFields(["userName", "password"], in: input.form)
            guard missing.isEmpty else { return problem(caller, Representation.invalidInput(missing)) }
            let username = input.form["userName"] ?? ""
            if let subject = input.session.subject, username != subject {
                return stepRefused(caller, .otherUser, asked: input.authenticatorID)
            }
            let user: StoredUser
            switch try await checkPassword(username: username, password: input.form["password"] ?? "") {
            case .success(let proven): user = proven
            case let failure: return await passwordCheckResponse(input, failure)
            }
            let challenge = Data(SecureRandom.bytes(32))
            let handle =
                (try await store.passkeys(username: user.username).first?.userHandle) ?? Data(SecureRandom.bytes(16))
            let registration = StepProgress.passkey(
                .init(kind: .registration, challenge: challenge, username: user.username, userHandle: handle))
            guard await flows.updateProgress(input.session.id, serial: input.step.serial, { $0 = registration }) != nil
            else { return stepRefused(caller, .stale, asked: input.authenticatorID) }
            let options = PublicKeyCredentialCreationOptions(
                rpId: relyingPartyID, rpName: "swift-haapi dev server", userID: handle, userName: user.username,
                userDisplayName: user.name ?? user.username, challenge: challenge,
                excludeCredentials: try await store.passkeys(username: user.username).compactMap {
                    Base64URL.decode($0.credentialID).map { Data($0) }
                },
                residentKey: "required", userVerification: "required", attestation: "none")
            return clientOperation(
                caller, authenticator, name: "webauthn-registration", viewName: "authenticator/passkeys/register",
                arguments: ["credentialCreationOptions": ["publicKey": options.json]], continueAction: "register")
        case ("POST", "assert"), ("POST", "register"):
            return await finishPasskey(input, isRegistration: input.action == "register")
        default:
            return problem(
                caller, Representation.problem(.unexpectedProblem, title: "Unsupported request"), status: .notFound)
        }
    }

    private func clientOperation(
        _ caller: HaapiCaller, _ authenticator: AuthenticatorConfiguration, name: String, viewName: String,
        arguments: JSONObject, continueAction: String
    ) -> Response {
        let operation: JSONValue = [
            "template": "client-operation", "kind": "login", "title": .string(authenticator.title),
            "model": [
                "name": .string(name), "arguments": .object(arguments),
                "continueActions": [
                    Representation.form(
                        kind: "continue", href: authenticatorURL(authenticator, continueAction),
                        fields: [Representation.field("credential", type: "context")],
                        type: FormActionModel.jsonMediaType)
                ],
                // Without a usable authenticator the app goes back to choose another way to sign in.
                "errorActions": [
                    Representation.form(
                        kind: "redirect", title: "Choose another way", href: url(Paths.authenticate), method: "GET")
                ],
            ],
        ]
        return representation(
            caller, Representation.step("authentication-step", viewName: viewName, actions: [operation]))
    }

    private func finishPasskey(_ input: AuthenticatorRequest, isRegistration: Bool) async -> Response {
        let caller = input.caller
        // The ceremony is taken out of the flow first: whatever happens next, its challenge cannot be used again.
        let taken = await flows.updateProgress(input.session.id, serial: input.step.serial) {
            progress -> StepProgress.PasskeyCeremony? in
            guard case .passkey(let ceremony) = progress else { return nil }
            progress = .idle
            return ceremony
        }
        guard let ceremony = taken ?? nil, (ceremony.kind == .registration) == isRegistration,
            let credential = input.json?["credential"]
        else {
            return problem(
                caller,
                Representation.problem(
                    .authenticationFailedProblem, title: "No passkey ceremony is waiting for this answer"),
                rule: .passkeyChallenge)
        }
        do throws(WebAuthnError) {
            if isRegistration {
                // The ceremony names the account whose password was proven in this flow: only it gets the credential.
                guard let username = ceremony.username, let handle = ceremony.userHandle else {
                    throw .verificationFailed("no account for this ceremony")
                }
                _ = try await registerPasskey(
                    try RegistrationResponse(json: credential), challenge: ceremony.challenge,
                    owner: .existingAccount(username),
                    userHandle: handle)
                return await completeStep(input, username: username)
            }
            let stored = try await verifyPasskeyAssertion(
                try AuthenticationResponse(json: credential), challenge: ceremony.challenge)
            return await completeStep(input, username: stored.username)
        } catch {
            return problem(
                caller,
                Representation.problem(.authenticationFailedProblem, title: "The passkey was not accepted: \(error)"),
                rule: Rule(webAuthn: error), detail: "\(error)")
        }
    }
}
