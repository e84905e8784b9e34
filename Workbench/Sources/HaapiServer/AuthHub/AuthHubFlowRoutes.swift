@_spi(Tooling) import AuthHub
import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Hummingbird

extension AuthHubRoutes {
    /// The tenant settings a client reads before `initAuth`; the vendor's value is a comma-separated string.
    func brandingSettings(_ call: AuthHubCall) async -> Response {
        let fields = call.tenant.fieldsToBeEncryptedInAuthFlow
        return Self.authHubJSON([
            "tenantName": .string(call.tenant.name),
            "fieldsToBeEncryptedInAuthFlow": .string(fields.isEmpty ? "none" : fields.joined(separator: ", ")),
        ])
    }

    /// The tenant's RSA public key (SubjectPublicKeyInfo PEM) for field encryption.
    func tenantPublicKey(_ call: AuthHubCall) async -> Response {
        guard let decryptor = try? await authHubFlows.decryptor() else {
            return Self.authHubError("8000014", "Failed to process request", status: .internalServerError)
        }
        return Self.authHubJSON(["publicKey": .string(decryptor.publicKeyPEM), "alg": "RSA-OAEP-256", "use": "enc"])
    }

    /// Step 2 of the nonce exchange in docs/AUTHHUB-ENCRYPTION.md.
    func nonceGenerator(_ call: AuthHubCall) async -> Response {
        guard let clientNonce = call.string("clientNonce") else {
            return Self.authHubError("3001036", "Invalid request: clientNonce is required")
        }
        do {
            let answer = try await authHubFlows.decryptor().answerNonceRequest(clientNonce, now: clock())
            return Self.authHubJSON(["id": .string(answer.nonceId), "serverNonce": .string(answer.serverNonce)])
        } catch {
            return Self.authHubError("0000012", "encrypted field clientNonce cannot be read")
        }
    }

    /// POST /auth/v1/authenticate: starts a flow for `subject`; the password comes next.
    func authHubAuthenticate(_ call: AuthHubCall) async -> Response {
        guard let subject = call.string("subject"), !subject.isEmpty, subject.count <= 256 else {
            return Self.authHubError("3001036", "Invalid request: subject is required")
        }
        let now = clock()
        var exchange: AHNonceExchange?
        let context = call.body["authContext"]?.arrayValue ?? []
        if let nonceId = context.first(where: { $0["key"]?.stringValue == "nonceId" })?["value"]?.stringValue {
            do { exchange = try await authHubFlows.decryptor().consume(nonceId: nonceId, now: now) } catch {
                return Self.authHubError("0000012", "the nonce exchange is unknown, expired or already used")
            }
        }
        if call.tenant.fieldsToBeEncryptedInAuthFlow.contains("devicesignature"),
            let signature = call.body["device"]?["signature"]?["iaAuthData"]?.stringValue
        {
            guard signature.hasPrefix("v1s."), let decryptor = try? await authHubFlows.decryptor(),
                (try? decryptor.decrypt(signature, exchange: exchange)) != nil
            else { return Self.authHubError("0000012", "encrypted field devicesignature cannot be read") }
        }
        let username: String?
        do { username = try await store.user(named: subject)?.username } catch { return Self.storeFailure(error) }
        let flow = AuthHubFlow(
            id: UUID().uuidString, tenant: call.tenant.name, clientID: call.clientID, subject: subject,
            username: username,
            expiresAt: now.addingTimeInterval(TimeInterval(configuration.authHub?.flowSeconds ?? 600)),
            exchange: exchange,
            nextAction: "PASSWORD_AUTH", currentStateID: UUID().uuidString)
        let state = await authHubFlows.begin(flow, now: now)
        return Self.authHubJSON([
            "flowState": .string(state), "nextaction": "PASSWORD_AUTH", "userName": .string(subject),
        ])
    }

    /// POST /auth/v1/SelectedFactor at FACTOR_SELECTION.
    func selectedFactor(_ call: AuthHubCall) async -> Response {
        await withAuthHubFlow(call, allowed: ["FACTOR_SELECTION"]) { flow in
            let factor = call.string("factor") ?? ""
            guard call.tenant.secondFactors.contains(factor), let username = flow.username else {
                return .retry(code: "8800246", message: "Invalid factor selection")
            }
            switch factor {
            case "EMAILOTP":
                guard let user = try await store.user(named: username), let email = user.email else {
                    return .retry(
                        code: "8800246", message: "Invalid factor selection: no e-mail address on the account")
                }
                let credId =
                    "email-"
                    + SHA256.hash(data: Data(username.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
                flow.emailCredential = credId
                let credential: JSONObject = [
                    "credId": .string(credId), "credType": "email",
                    "credValue": .string(AuthenticatorRoutes.maskEmail(email)),
                ]
                return .next("EMAIL_OTP_SELECTION", ["credentials": .array([.object(credential)])])
            default:
                let registered = try await !store.passkeys(username: username).isEmpty
                return registered
                    ? .next("FIDO_AUTH_GENERATE_CHALLENGE")
                    : .next("FIDO_REGISTER_GENERATE_CHALLENGE", ["inline_registration": true])
            }
        }
    }

    /// The factors after the password, or AUTH_ALLOWED when the tenant has none.
    func afterPassword(_ tenant: AuthHubSettings.Tenant) -> AuthHubStep {
        tenant.secondFactors.isEmpty
            ? .allowed : .next("FACTOR_SELECTION", ["currentFactors": .array(tenant.secondFactors.map { .string($0) })])
    }

    /// Opens a field the tenant may want encrypted: `v1.`/`v1s.` need the flow's exchange; a bare base64 RSA
    /// block is public-key encrypted; anything else is plain text, refused when the tenant requires encryption.
    func readProtectedField(
        _ value: String, name: String, tenant: AuthHubSettings.Tenant, exchange: AHNonceExchange?
    ) async -> Result<String, AuthHubFieldRefusal> {
        let required = tenant.fieldsToBeEncryptedInAuthFlow.contains(name)
        let looksEncrypted =
            value.hasPrefix("v1.") || value.hasPrefix("v1s.") || (Data(base64Encoded: value)?.count ?? 0) >= 256
        guard looksEncrypted else {
            return required
                ? .failure(AuthHubFieldRefusal(message: "the tenant requires the \(name) field to be encrypted"))
                : .success(value)
        }
        // A bare RSA block is bound to nothing: captured once, it would sign in to any later flow. Where the
        // tenant requires encryption, only the forms bound to this flow's nonce exchange are accepted.
        if required, !value.hasPrefix("v1.") && !value.hasPrefix("v1s.") {
            return .failure(
                AuthHubFieldRefusal(
                    message: "the tenant requires the \(name) field bound to this flow's nonce exchange (v1. or v1s.)"))
        }
        do {
            return .success(try await authHubFlows.decryptor().decrypt(value, exchange: exchange))
        } catch {
            return .failure(AuthHubFieldRefusal(message: "encrypted field \(name) cannot be read"))
        }
    }
}

struct AuthHubFieldRefusal: Error {
    let message: String
}
