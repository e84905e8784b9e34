import Foundation
import HaapiModel
import Passkeys

extension AHFlow {
    /// FIDO registration: the challenge generator, the authenticator, then the verifier.
    /// `documentDomain` is the web origin the hub derives the RP ID from (`https://<rp domain>`).
    public func registerPasskey(
        with authenticator: any WebAuthnAuthenticator, documentDomain: String, userName: String,
        deviceName: String
    ) async throws(AHFlowError) -> AHFlowResponse {
        let challenge = try await send(
            .registerChallengeGenerator,
            [
                "documentDomain": documentDomain, "userName": userName, "deviceName": deviceName,
                "fidoCredType": "FIDO",
                "actionType": "FIDO_REGISTER_GENERATE_CHALLENGE",
            ])
        let options: PublicKeyCredentialCreationOptions
        do { options = try PublicKeyCredentialCreationOptions(json: try Self.json(challenge.stepData)) } catch {
            throw .passkey("\(error)")
        }
        let credential: RegistrationResponse
        do { credential = try await authenticator.register(options, origin: documentDomain) } catch {
            throw .passkey("\(error)")
        }
        return try await send(.registerChallengeVerifier, try Self.hubCredential(credential.json))
    }

    /// FIDO sign-in: the challenge generator, the authenticator, then the verifier.
    public func authenticateWithPasskey(
        _ authenticator: any WebAuthnAuthenticator, documentDomain: String,
        userName: String
    ) async throws(AHFlowError) -> AHFlowResponse {
        let challenge = try await send(
            .authChallengeGenerator,
            [
                "documentDomain": documentDomain, "userName": userName, "fidoCredType": "FIDO",
                "actionType": "FIDO_AUTH_GENERATE_CHALLENGE",
            ])
        let options: PublicKeyCredentialRequestOptions
        do { options = try PublicKeyCredentialRequestOptions(json: try Self.json(challenge.stepData)) } catch {
            throw .passkey("\(error)")
        }
        let assertion: AuthenticationResponse
        do { assertion = try await authenticator.authenticate(options, origin: documentDomain) } catch {
            throw .passkey("\(error)")
        }
        return try await send(.authChallengeVerifier, try Self.hubCredential(assertion.json))
    }

    static func json(_ object: [String: Any]) throws(AHFlowError) -> JSONValue {
        do { return try JSONParser().parse(try JSONSerialization.data(withJSONObject: object)) } catch {
            throw .invalidResponse("the WebAuthn options are not JSON")
        }
    }

    /// The browser-style credential JSON in the hub's dialect: `response.getTransports` is an empty object
    /// (the hub refuses an array) and `getClientExtensionResults` is present.
    static func hubCredential(_ credential: JSONValue) throws(AHFlowError) -> [String: Any] {
        guard
            var object = (try? JSONSerialization.jsonObject(with: Data(credential.serialized().utf8))) as? [String: Any]
        else {
            throw .invalidResponse("the credential is not a JSON object")
        }
        var response = object["response"] as? [String: Any] ?? [:]
        response.removeValue(forKey: "transports")
        response["getTransports"] = [String: Any]()
        object["response"] = response
        object["getClientExtensionResults"] = object.removeValue(forKey: "clientExtensionResults") ?? [String: Any]()
        return object
    }
}
