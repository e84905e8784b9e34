import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRules
import Hummingbird
@_spi(Tooling) import Passkeys

/// A web app's passkey endpoints (seed 004's pattern). It owns its challenges and RP sessions.
struct WebAppRelyingPartyRoutes: ServerService, PasskeyStoring {
    let address: ServerAddress
    let configuration: ServerConfiguration
    let store: ServerStore
    let clock: @Sendable () -> Date
    /// Challenges handed out and not yet answered (bounded, single use).
    let passkeyChallenges = PasskeyChallenges()
    /// Sessions of signed-in accounts, which may add passkeys to their account.
    let relyingPartySessions = RelyingPartySessions()
}

extension WebAppRelyingPartyRoutes {
    /// The passkey endpoints of a web app (the pattern of seed 004's sample): sign-up and sign-in with a
    /// discoverable credential, and the end of an RP session. The RP ID and origins come from `passkeys` in
    /// the configuration (by default the server's host and origin). The pages that call them are `SiteRoutes`.
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get("registration_initialize") { request, _ in try await self.registrationInitialize(request) }
        router.post("registration_finalize") { request, _ in await self.registrationFinalize(request) }
        router.get("authentication_initialize") { _, _ in await self.authenticationInitialize() }
        router.post("authentication_finalize") { request, _ in await self.authenticationFinalize(request) }
        router.post("logout") { request, _ in try await self.logout(request) }
    }

    /// Ends the RP session the request presents (`Authorization: Bearer`), so its token can add no passkey.
    func logout(_ request: Request) async throws(Rejection) -> Response {
        guard let authorization = HTTP.header(request, .authorization), HTTP.hasAuthScheme(authorization, "bearer")
        else {
            return Self.rpError(
                "use Authorization: Bearer with the session to end", rule: .passkeySession, status: .unauthorized)
        }
        await relyingPartySessions.close(String(HTTP.trimmingOWS(authorization.dropFirst(7))), now: clock())
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    /// The account a ceremony confirmed; after a sign-in also the RP session that may add passkeys to it.
    static func accountJSON(_ passkey: StoredPasskey, session: String? = nil) -> Response {
        var body: JSONObject = [
            "credential": [
                "id": .string(passkey.credentialID),
                "user": [
                    "id": .string(Base64URL.encode(passkey.userHandle)), "name": .string(passkey.username),
                    "displayName": .string(passkey.username),
                ],
            ]
        ]
        if let session { body["session"] = .string(session) }
        return HTTP.json(.object(body))
    }

    /// The web app's refusal shape (`{"error": …}`), for a breach of `rule`.
    static func rpError(_ message: String, rule: Rule, status: HTTPResponse.Status = .badRequest) -> Response {
        RequestTrace.refuse(rule, message)
        return HTTP.json(["error": .string(message)], status: status)
    }

    /// Sign-up creates a new passkey-only account; adding a passkey to an existing account needs that
    /// account's RP session (`Authorization: Bearer`, from a passkey sign-in). A name that is already an
    /// account's username or e-mail address is refused without a session, so nobody can attach a credential
    /// to someone else's account, and a credential never waits for an account to be created under its name.
    func registrationInitialize(_ request: Request) async throws(Rejection) -> Response {
        let now = clock()
        let signedIn = try await relyingPartySessionUser(request, now: now)
        guard let name = request.uri.queryParameters.get("user_name") ?? signedIn, !name.isEmpty, name.count <= 64
        else {
            return Self.rpError("user name not provided", rule: .invalidRequest)
        }
        let ceremony: PasskeyChallenges.Pending.Ceremony
        let userHandle: Data
        if let signedIn {
            guard signedIn == name else {
                return Self.rpError(
                    "a signed-in user can add passkeys only to its own account", rule: .passkeySession,
                    status: .forbidden)
            }
            ceremony = .addToAccount
            userHandle =
                try await Rejection.unlessStoreFails({ try await store.passkeys(username: name).first?.userHandle })
                ?? Data(SecureRandom.bytes(16))
        } else {
            guard try await Rejection.unlessStoreFails({ try await store.accountExists(identifier: name) }) == false
            else {
                return Self.rpError(
                    "User already registered; sign in with a passkey of this account to add another",
                    rule: .passkeySession, status: .conflict)
            }
            ceremony = .newAccount
            userHandle = Data(SecureRandom.bytes(16))
        }
        let challenge = Data(SecureRandom.bytes(32))
        let existing = try await Rejection.unlessStoreFails({ try await store.passkeys(username: name) }).compactMap {
            Base64URL.decode($0.credentialID).map { Data($0) }
        }
        let options = PublicKeyCredentialCreationOptions(
            rpId: relyingPartyID, rpName: "swift-haapi dev server", userID: userHandle, userName: name,
            userDisplayName: name, challenge: challenge,
            excludeCredentials: existing, residentKey: "required", userVerification: "required", attestation: "none")
        let pending = PasskeyChallenges.Pending(
            ceremony: ceremony, username: name, userHandle: userHandle, expiresAt: now.addingTimeInterval(300))
        await passkeyChallenges.issue(challenge, pending, now: now)
        var publicKey = options.json.objectValue ?? [:]
        if case .object(var selection)? = publicKey["authenticatorSelection"] {
            // Left out unless configured, so the browser offers security keys and phones as well.
            if let attachment = configuration.passkeys.authenticatorAttachment {
                selection["authenticatorAttachment"] = .string(attachment)
            }
            selection["requireResidentKey"] = true
            publicKey["authenticatorSelection"] = .object(selection)
        }
        return HTTP.json(["publicKey": .object(publicKey)])
    }

    /// The account of the RP session the request presents: `nil` without one, a 401 for a dead one.
    private func relyingPartySessionUser(_ request: Request, now: Date) async throws(Rejection) -> String? {
        guard let authorization = HTTP.header(request, .authorization) else { return nil }
        guard authorization.lowercased().hasPrefix("bearer ") else {
            throw Rejection(Self.rpError("use Authorization: Bearer", rule: .passkeySession, status: .unauthorized))
        }
        let token = String(HTTP.trimmingOWS(authorization.dropFirst(7)))
        guard let username = await relyingPartySessions.username(for: token, now: now) else {
            throw Rejection(
                Self.rpError(
                    "the session has expired or does not exist; sign in again", rule: .passkeySession,
                    status: .unauthorized))
        }
        return username
    }

    func registrationFinalize(_ incoming: Request) async -> Response {
        var request = incoming
        guard let body = try? await HTTP.bodyText(&request, limit: 64 * 1024), let json = try? JSONParser().parse(body)
        else {
            return Self.rpError("the body must be a registration credential (JSON)", rule: .passkeyInvalid)
        }
        do throws(WebAuthnError) {
            let response = try RegistrationResponse(json: json)
            let clientData = try CollectedClientData(parsing: response.clientDataJSON)
            guard let pending = await passkeyChallenges.take(clientData.challenge, now: clock()),
                let username = pending.username, let userHandle = pending.userHandle
            else {
                return Self.rpError("Stored challenge and received challenge do not match", rule: .passkeyChallenge)
            }
            let owner: PasskeyOwner
            switch pending.ceremony {
            case .newAccount: owner = .newAccount(username: username)
            case .addToAccount: owner = .existingAccount(username)
            case .authentication:
                return Self.rpError("Stored challenge and received challenge do not match", rule: .passkeyChallenge)
            }
            let stored = try await registerPasskey(
                response, challenge: clientData.challenge, owner: owner, userHandle: userHandle)
            return Self.accountJSON(stored)
        } catch {
            return Self.rpError("\(error)", rule: Rule(webAuthn: error))
        }
    }

    func authenticationInitialize() async -> Response {
        let challenge = Data(SecureRandom.bytes(32))
        await passkeyChallenges.issue(
            challenge,
            .init(
                ceremony: .authentication, username: nil, userHandle: nil,
                expiresAt: clock().addingTimeInterval(300)), now: clock())
        let options = PublicKeyCredentialRequestOptions(
            challenge: challenge, rpId: relyingPartyID, userVerification: "required")
        return HTTP.json(["publicKey": options.json])
    }

    func authenticationFinalize(_ incoming: Request) async -> Response {
        var request = incoming
        guard let body = try? await HTTP.bodyText(&request, limit: 64 * 1024), let json = try? JSONParser().parse(body)
        else {
            return Self.rpError("the body must be an assertion credential (JSON)", rule: .passkeyInvalid)
        }
        do throws(WebAuthnError) {
            let response = try AuthenticationResponse(json: json)
            let clientData = try CollectedClientData(parsing: response.clientDataJSON)
            guard let pending = await passkeyChallenges.take(clientData.challenge, now: clock()),
                pending.ceremony == .authentication
            else {
                return Self.rpError(
                    "Stored challenge and received challenge do not match", rule: .passkeyChallenge,
                    status: .unauthorized)
            }
            // A discoverable sign-in names its account only by userHandle: it is required here.
            guard response.userHandle != nil else {
                return Self.rpError("the assertion has no userHandle", rule: .passkeyInvalid, status: .unauthorized)
            }
            let stored = try await verifyPasskeyAssertion(response, challenge: clientData.challenge)
            let session = await relyingPartySessions.open(for: stored.username, now: clock())
            return Self.accountJSON(stored, session: session)
        } catch {
            return Self.rpError(
                "failed to validate assertion: \(error)", rule: Rule(webAuthn: error), status: .unauthorized)
        }
    }
}
