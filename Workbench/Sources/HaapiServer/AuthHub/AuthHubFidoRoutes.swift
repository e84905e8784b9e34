import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Hummingbird
@_spi(Tooling) import Passkeys

extension AuthHubRoutes {
    /// The FIDO factor's relying party is this server: `documentDomain` must be its origin (research A.9).
    private func checkDocumentDomain(_ call: AuthHubCall, _ flow: AuthHubFlow) -> String? {
        let domain = (call.string("documentDomain") ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard domain == issuer else { return "Invalid request: documentDomain must be \(issuer)" }
        guard call.string("userName") == flow.username else {
            return "Invalid request: userName is not the flow's user"
        }
        return nil
    }

    /// POST /factor/v1/FIDORegChallengeGenerator: creation options in `data` (base64url binaries).
    func fidoRegistrationChallenge(_ call: AuthHubCall) async -> Response {
        await withAuthHubFlow(call, allowed: ["FIDO_REGISTER_GENERATE_CHALLENGE"]) { flow in
            if let problem = checkDocumentDomain(call, flow) { return .retry(code: "3001036", message: problem) }
            guard let username = flow.username, flow.methods.contains("pwd") else {
                return .fail(code: "0000011", message: "Not an intended action")
            }
            let existing = try await store.passkeys(username: username)
            let userHandle = existing.first?.userHandle ?? Data(SecureRandom.bytes(16))
            let challenge = Data(SecureRandom.bytes(32))
            var options = PublicKeyCredentialCreationOptions(
                rpId: relyingPartyID, rpName: "swift-haapi dev server", userID: userHandle, userName: username,
                userDisplayName: username,
                challenge: challenge, residentKey: "preferred", userVerification: "required", attestation: "none")
            options.excludeCredentials = existing.compactMap { Base64URL.decode($0.credentialID).map { Data($0) } }
            flow.fidoChallenge = challenge
            flow.fidoUserHandle = userHandle
            return .next("FIDO_REGISTER_VERIFY_CHALLENGE", ["data": options.json])
        }
    }

    /// POST /factor/v1/FIDORegChallengeVerifier: verifies and stores the passkey, then asks for a sign-in with it.
    func fidoRegistrationVerifier(_ call: AuthHubCall) async -> Response {
        await withAuthHubFlow(call, allowed: ["FIDO_REGISTER_VERIFY_CHALLENGE"]) { flow in
            // A challenge serves one attempt; after a failure the client asks for a new one.
            let challenge = flow.fidoChallenge
            flow.fidoChallenge = nil
            flow.nextAction = "FIDO_REGISTER_GENERATE_CHALLENGE"
            if call.body["response"]?["getTransports"]?.arrayValue != nil {
                return .retry(
                    code: "3001036", message: "Invalid request: getTransports must be an object", nested: true)
            }
            guard let challenge, let username = flow.username, let userHandle = flow.fidoUserHandle else {
                return .retry(code: "3001036", message: "Invalid request: no registration challenge", nested: true)
            }
            do throws(WebAuthnError) {
                // Only after this flow proved the password (checked when the challenge was made) is the account's owner known.
                let stored = try await registerPasskey(
                    try RegistrationResponse(json: call.body), challenge: challenge, owner: .existingAccount(username),
                    userHandle: userHandle)
                return .next(
                    "FIDO_AUTH_GENERATE_CHALLENGE", ["data": .object(["fidoIdentifier": .string(stored.credentialID)])])
            } catch {
                return .retry(code: "3001036", message: "FIDO registration failed: \(error)", nested: true)
            }
        }
    }

    /// POST /factor/v1/FIDOAuthChallengeGenerator: request options for the user's passkeys.
    func fidoAuthenticationChallenge(_ call: AuthHubCall) async -> Response {
        await withAuthHubFlow(call, allowed: ["FIDO_AUTH_GENERATE_CHALLENGE"]) { flow in
            if let problem = checkDocumentDomain(call, flow) { return .retry(code: "3001036", message: problem) }
            var existing: [StoredPasskey] = []
            if let username = flow.username { existing = try await store.passkeys(username: username) }
            guard !existing.isEmpty else {
                return flow.methods.contains("pwd")
                    ? .next("FIDO_REGISTER_GENERATE_CHALLENGE")
                    : .fail(code: "3001035", message: "No active FIDO credential")
            }
            let challenge = Data(SecureRandom.bytes(32))
            flow.fidoChallenge = challenge
            let options = PublicKeyCredentialRequestOptions(
                challenge: challenge, rpId: relyingPartyID,
                allowCredentials: existing.compactMap { Base64URL.decode($0.credentialID).map { Data($0) } },
                userVerification: "required")
            return .next("FIDO_AUTH_VERIFY_CHALLENGE", ["data": options.json])
        }
    }

    /// POST /factor/v1/FIDOAuthChallengeVerifier: the assertion must be the flow user's passkey.
    func fidoAuthenticationVerifier(_ call: AuthHubCall) async -> Response {
        await withAuthHubFlow(call, allowed: ["FIDO_AUTH_VERIFY_CHALLENGE"]) { flow in
            let challenge = flow.fidoChallenge
            flow.fidoChallenge = nil
            flow.nextAction = "FIDO_AUTH_GENERATE_CHALLENGE"
            guard let challenge else {
                return .retry(code: "3001036", message: "Invalid request: no sign-in challenge", nested: true)
            }
            do throws(WebAuthnError) {
                let parsed = try AuthenticationResponse(json: call.body)
                // The hub's clients send "" when the authenticator gives no user handle.
                let response =
                    parsed.userHandle?.isEmpty == true
                    ? AuthenticationResponse(
                        credentialID: parsed.credentialID, clientDataJSON: parsed.clientDataJSON,
                        authenticatorData: parsed.authenticatorData,
                        signature: parsed.signature, userHandle: nil,
                        authenticatorAttachment: parsed.authenticatorAttachment)
                    : parsed
                let stored = try await verifyPasskeyAssertion(response, challenge: challenge)
                guard stored.username == flow.username else {
                    return .retry(code: "3001033", message: "Invalid credentials: another user's passkey", nested: true)
                }
                flow.methods.append("fido")
                return .allowed
            } catch {
                return .retry(code: "3001033", message: "FIDO sign-in failed: \(error)", nested: true)
            }
        }
    }
}
