@_spi(Tooling) import HaapiModel
@_spi(Tooling) import Passkeys

extension AHFlow {
    /// FIDO registration: the challenge generator, the authenticator, then the verifier.
    /// `documentDomain` is the web origin the hub derives the RP ID from (`https://<rp domain>`).
    public func registerPasskey(
        with authenticator: any WebAuthnAuthenticator, documentDomain: String, userName: String,
        deviceName: String
    ) async throws(AHFlowError) -> AHFlowResponse {
        let challenge = try await send(
            .registerChallengeGenerator,
            json: [
                "documentDomain": .string(documentDomain), "userName": .string(userName),
                "deviceName": .string(deviceName), "fidoCredType": "FIDO",
                "actionType": "FIDO_REGISTER_GENERATE_CHALLENGE",
            ])
        let options: PublicKeyCredentialCreationOptions
        do { options = try PublicKeyCredentialCreationOptions(json: .object(challenge.stepJSON)) } catch {
            throw .passkey("\(error)")
        }
        let credential: RegistrationResponse
        do { credential = try await authenticator.register(options, origin: documentDomain) } catch {
            throw .passkey("\(error)")
        }
        return try await send(.registerChallengeVerifier, json: try Self.hubCredential(credential.json))
    }

    /// FIDO sign-in: the challenge generator, the authenticator, then the verifier.
    public func authenticateWithPasskey(
        _ authenticator: any WebAuthnAuthenticator, documentDomain: String,
        userName: String
    ) async throws(AHFlowError) -> AHFlowResponse {
        let challenge = try await send(
            .authChallengeGenerator,
            json: [
                "documentDomain": .string(documentDomain), "userName": .string(userName), "fidoCredType": "FIDO",
                "actionType": "FIDO_AUTH_GENERATE_CHALLENGE",
            ])
        let options: PublicKeyCredentialRequestOptions
        do { options = try PublicKeyCredentialRequestOptions(json: .object(challenge.stepJSON)) } catch {
            throw .passkey("\(error)")
        }
        let assertion: AuthenticationResponse
        do { assertion = try await authenticator.authenticate(options, origin: documentDomain) } catch {
            throw .passkey("\(error)")
        }
        return try await send(.authChallengeVerifier, json: try Self.hubCredential(assertion.json))
    }

    /// The browser-style credential JSON in the hub's dialect: `response.getTransports` is an empty object
    /// (the hub refuses an array) and `getClientExtensionResults` is present.
    static func hubCredential(_ credential: JSONValue) throws(AHFlowError) -> JSONObject {
        guard var object = credential.objectValue else { throw .invalidResponse("the credential is not a JSON object") }
        var response = object["response"]?.objectValue ?? [:]
        response["transports"] = nil
        response["getTransports"] = .object([:])
        object["response"] = .object(response)
        let extensions = object["clientExtensionResults"] ?? .object([:])
        object["clientExtensionResults"] = nil
        object["getClientExtensionResults"] = extensions
        return object
    }
}
