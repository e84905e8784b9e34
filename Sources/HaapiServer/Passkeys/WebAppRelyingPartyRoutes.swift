import Foundation
import HaapiDriver
import Hummingbird
import Passkeys

extension DevServer {
    /// The passkey endpoints of a web app (the pattern of seed 004's sample): sign-up and sign-in with a
    /// discoverable credential. The RP ID is the server's host and the only accepted origin is its issuer.
    func addWebAppRelyingPartyRoutes(to router: Router<ServerRequestContext>) {
        router.get("registration_initialize") { request, _ in await self.registrationInitialize(request) }
        router.post("registration_finalize") { request, _ in await self.registrationFinalize(request) }
        router.get("authentication_initialize") { _, _ in await self.authenticationInitialize() }
        router.post("authentication_finalize") { request, _ in await self.authenticationFinalize(request) }
    }

    var relyingPartyId: String { URL(string: issuer)?.host ?? "localhost" }

    var relyingPartyVerifier: RelyingPartyVerifier {
        RelyingPartyVerifier(rpId: relyingPartyId, origins: [issuer], requireUserVerification: true)
    }

    static func accountJSON(_ passkey: StoredPasskey) -> Response {
        HTTP.json(["credential": ["id": .string(passkey.credentialId), "user": [
            "id": .string(Base64URL.encode(passkey.userHandle)), "name": .string(passkey.username), "displayName": .string(passkey.username),
        ]]])
    }

    static func rpError(_ message: String, status: HTTPResponse.Status = .badRequest) -> Response {
        HTTP.json(["error": .string(message)], status: status)
    }

    func registrationInitialize(_ request: Request) async -> Response {
        guard let name = request.uri.queryParameters.get("user_name"), !name.isEmpty, name.count <= 64 else {
            return Self.rpError("user name not provided")
        }
        if (try? store.passkeys(username: name).isEmpty) == false { return Self.rpError("User already registered") }
        let userHandle = Data(SecureRandom.bytes(16))
        let challenge = Data(SecureRandom.bytes(32))
        let options = PublicKeyCredentialCreationOptions(
            rpId: relyingPartyId, rpName: "swift-haapi dev server", userId: userHandle, userName: name, userDisplayName: name, challenge: challenge,
            residentKey: "required", userVerification: "required", attestation: "none")
        await passkeyChallenges.issue(challenge, .init(ceremony: .registration, username: name, userHandle: userHandle,
                                                       expiresAt: clock().addingTimeInterval(300)), now: clock())
        var publicKey = options.json.objectValue ?? [:]
        if case .object(var selection)? = publicKey["authenticatorSelection"] {
            selection["authenticatorAttachment"] = "platform"
            selection["requireResidentKey"] = true
            publicKey["authenticatorSelection"] = .object(selection)
        }
        return HTTP.json(["publicKey": .object(publicKey)])
    }

    func registrationFinalize(_ incoming: Request) async -> Response {
        var request = incoming
        guard let body = try? await HTTP.bodyText(&request, limit: 64 * 1024), let json = try? JSONParser().parse(body) else {
            return Self.rpError("the body must be a registration credential (JSON)")
        }
        do throws(WebAuthnError) {
            let response = try RegistrationResponse(json: json)
            let clientData = try CollectedClientData(parsing: response.clientDataJSON)
            guard let pending = await passkeyChallenges.take(clientData.challenge, now: clock()), pending.ceremony == .registration,
                let username = pending.username, let userHandle = pending.userHandle
            else { return Self.rpError("Stored challenge and received challenge do not match") }
            let stored = try registerPasskey(response, challenge: clientData.challenge, username: username, userHandle: userHandle)
            return Self.accountJSON(stored)
        } catch {
            return Self.rpError("\(error)")
        }
    }

    func authenticationInitialize() async -> Response {
        let challenge = Data(SecureRandom.bytes(32))
        await passkeyChallenges.issue(challenge, .init(ceremony: .authentication, username: nil, userHandle: nil,
                                                       expiresAt: clock().addingTimeInterval(300)), now: clock())
        let options = PublicKeyCredentialRequestOptions(challenge: challenge, rpId: relyingPartyId, userVerification: "required")
        return HTTP.json(["publicKey": options.json])
    }

    func authenticationFinalize(_ incoming: Request) async -> Response {
        var request = incoming
        guard let body = try? await HTTP.bodyText(&request, limit: 64 * 1024), let json = try? JSONParser().parse(body) else {
            return Self.rpError("the body must be an assertion credential (JSON)")
        }
        do throws(WebAuthnError) {
            let response = try AuthenticationResponse(json: json)
            let clientData = try CollectedClientData(parsing: response.clientDataJSON)
            guard let pending = await passkeyChallenges.take(clientData.challenge, now: clock()), pending.ceremony == .authentication else {
                return Self.rpError("Stored challenge and received challenge do not match", status: .unauthorized)
            }
            // A discoverable sign-in names its account only by userHandle: it is required here.
            guard response.userHandle != nil else { return Self.rpError("the assertion has no userHandle", status: .unauthorized) }
            return Self.accountJSON(try verifyPasskeyAssertion(response, challenge: clientData.challenge))
        } catch {
            return Self.rpError("failed to validate assertion: \(error)", status: .unauthorized)
        }
    }
}
