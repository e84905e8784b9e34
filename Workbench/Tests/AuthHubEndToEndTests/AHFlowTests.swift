@_spi(Tooling) import AuthHub
import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRules
@_spi(Tooling) import Passkeys
import Testing

/// Whole flows against the dev server: the X-Flow-State chain, the factors, and what an attacker tries.
@Suite("AHFlow against the dev server", .serialized)
struct AHFlowTests {
    @Test(
        "password (encrypted) then e-mail OTP: a wrong code is a typed error and the flow goes on; the right one ends in AUTH_ALLOWED"
    )
    func passwordThenOTP() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let core = AHCore()
        let flow = hub.flow(core: core)
        let first = try await flow.start(
            authRequestParams: AuthHubTestServer.parameters("demouser"), fieldsTobeEncryptedList: ["password"])
        #expect(first.nextAction == .passwordAuth)
        do {
            _ = try await flow.authenticatePassword(try core.encryptData(plainText: "wrong-password"))
            Issue.record("a wrong password was accepted")
        } catch {
            #expect(error.serverCode == "1004003")
        }
        let selection = try await flow.authenticatePassword(try core.encryptData(plainText: "Password1"))
        #expect(selection.nextAction == .factorSelection && selection.currentFactors == ["EMAILOTP", "FIDO"])
        let email = try await flow.selectFactor("EMAILOTP")
        let credential = try #require(email.credentials.first)
        #expect(
            email.nextAction == .emailOTPSelection && credential.credType == "email"
                && (credential.credValue ?? "").hasPrefix("d*")
                && credential.credValue?.hasSuffix("@example.com") == true
                && credential.credValue?.contains("demouser") == false)
        let sent = try await flow.generateOTP(credId: credential.credId, credType: "EMAIL")
        #expect(sent.nextAction == .emailOTPAuth && sent.stepData["credId"] as? String == credential.credId)
        let code = try #require(await hub.latestCode(for: "demouser"))
        do {
            _ = try await flow.verifyOTP(credId: credential.credId, otp: code == "000000" ? "111111" : "000000")
            Issue.record("a wrong code was accepted")
        } catch {
            #expect(error.serverCode == AHServerError.Kind.invalidOTP.rawValue)
        }
        let done = try await flow.verifyOTP(credId: credential.credId, otp: code)
        #expect(done.nextAction == .authAllowed && done.sessionToken != nil)
        let claims = AuthHubTestServer.claims(try #require(done.idToken))
        #expect(claims["sub"] as? String == "demouser" && claims["aud"] as? String == "authhub-app")
        #expect(claims["amr"] as? [String] == ["pwd", "otp"])
        #expect(await flow.flowState == nil)
    }

    @Test(
        "X-Flow-State: single use (a replay gets 0000011), garbage or another tenant's gets 0000010, none gets 0000011")
    func flowStateChain() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let flow = hub.flow(tenant: "plain")
        let first = try await flow.start(authRequestParams: AuthHubTestServer.parameters("demouser"))
        let spent = try #require(first.flowState)
        func raw(_ tenant: String, _ state: String?, _ body: [String: Any]) async throws -> AHServerError? {
            var headers = hub.headers
            if let state { headers[AHConstants.HttpHeader.FlowState] = state }
            let endpoint = AuthHubEndpoint(serverHost: hub.host, tenant: tenant, path: .passwordAuthenticator)
                .setRequestHeaders(headers).setRequestPayloadParameters(body)
            let answer = try await AuthHubBasicRequest().sendRequest(endpoint: endpoint)
            return AHCoreResult(code: 0, message: "", data: answer.data).serverError
        }
        // A wrong password spends the state and hands out a new one.
        do { _ = try await flow.authenticatePassword("nope") } catch { #expect(error.serverCode == "1004003") }
        let current = try #require(await flow.flowState)
        #expect(current != spent)
        #expect(try await raw("plain", spent, ["password": "Password1"])?.kind == .notAnIntendedAction)
        #expect(try await raw("plain", "garbage", ["password": "Password1"])?.kind == .invalidFlowState)
        #expect(try await raw("default", current, ["password": "Password1"])?.kind == .invalidFlowState)
        #expect(try await raw("plain", nil, ["password": "Password1"])?.kind == .notAnIntendedAction)
        // The wrong step for the state: an OTP now is not intended, and does not spend the state.
        do { _ = try await flow.verifyOTP(credId: "x", otp: "123456") } catch { #expect(error.serverCode == "0000011") }
        let done = try await flow.authenticatePassword("Password1")
        #expect(done.nextAction == .authAllowed)
        #expect(try await raw("plain", current, ["password": "Password1"])?.kind == .notAnIntendedAction)
    }

    @Test(
        "encryption on the wire: plain text refused where required, a nonce-bound password does not work in another flow, a used exchange is refused"
    )
    func encryptionRefusals() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let core = AHCore()
        let flowA = hub.flow(core: core)
        _ = try await flowA.start(
            authRequestParams: AuthHubTestServer.parameters("demouser"), fieldsTobeEncryptedList: ["password"])
        let boundToA = try core.encryptData(plainText: "Password1")
        let flowB = hub.flow(core: core)
        _ = try await flowB.start(
            authRequestParams: AuthHubTestServer.parameters("demouser"), fieldsTobeEncryptedList: ["password"])
        do {
            _ = try await flowB.authenticatePassword(boundToA)
            Issue.record("a password sealed for another flow was accepted")
        } catch {
            #expect(error.serverCode == "0000012")
        }
        // The refusal ended flow B.
        do { _ = try await flowB.authenticatePassword(try core.encryptData(plainText: "Password1")) } catch {
            #expect(error.serverCode == "0000011")
        }
        // Plain text where the tenant requires encryption.
        do {
            _ = try await flowA.authenticatePassword("Password1")
            Issue.record("a plain password was accepted by a tenant that requires encryption")
        } catch {
            #expect(error.serverCode == "0000012")
        }
        // A tampered ciphertext.
        let flowC = hub.flow(core: core)
        _ = try await flowC.start(
            authRequestParams: AuthHubTestServer.parameters("demouser"), fieldsTobeEncryptedList: ["password"])
        var tampered = Array(try core.encryptData(plainText: "Password1"))
        tampered[10] = tampered[10] == "A" ? "B" : "A"
        do { _ = try await flowC.authenticatePassword(String(tampered)) } catch {
            #expect(error.serverCode == "0000012")
        }
        // A nonce exchange names one flow: a second /authenticate naming the same nonceId is refused.
        let send = { (path: AuthHubEndpoint.Path, body: [String: Any]) async throws -> [String: Any] in
            try await AuthHubBasicRequest().sendRequest(
                endpoint: AuthHubEndpoint(serverHost: hub.host, tenant: "default", path: path)
                    .setRequestHeaders(hub.headers).setRequestPayloadParameters(body)
            ).data
        }
        let key = try AHFieldEncryptor(
            tenantKeyPEM: try #require(try await send(.authHubPublicKey, [:])["publicKey"] as? String))
        let (_, sealedClientNonce) = try key.startNonceExchange()
        let nonceId = try #require(
            try await send(.serverNonceGenerator, ["clientNonce": sealedClientNonce])["id"] as? String)
        var parameters = AuthHubTestServer.parameters("demouser")
        parameters["authContext"] = [["key": "nonceId", "value": nonceId]]
        #expect(try await send(.authEndpoint, parameters)["nextaction"] as? String == "PASSWORD_AUTH")
        #expect(try await send(.authEndpoint, parameters)["errorCode"] as? String == "0000012")
    }

    @Test(
        "FIDO: after the password, register a passkey inline (getTransports as {}), sign in with it; the next flow goes straight to sign-in"
    )
    func fido() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let core = AHCore()
        let authenticator = SoftwareAuthenticator(storage: InMemoryStorage())
        let origin = hub.host.hasSuffix("/") ? String(hub.host.dropLast()) : hub.host
        let flow = hub.flow(core: core)
        _ = try await flow.start(
            authRequestParams: AuthHubTestServer.parameters("demouser"), fieldsTobeEncryptedList: ["password"])
        _ = try await flow.authenticatePassword(try core.encryptData(plainText: "Password1"))
        let chosen = try await flow.selectFactor("FIDO")
        #expect(chosen.nextAction == .fidoRegisterGenerateChallenge)
        let registered = try await flow.registerPasskey(
            with: authenticator, documentDomain: origin, userName: "demouser", deviceName: "test")
        #expect(registered.nextAction == .fidoAuthGenerateChallenge && registered.stepData["fidoIdentifier"] != nil)
        let done = try await flow.authenticateWithPasskey(authenticator, documentDomain: origin, userName: "demouser")
        #expect(done.nextAction == .authAllowed)
        #expect(AuthHubTestServer.claims(try #require(done.idToken))["amr"] as? [String] == ["pwd", "fido"])

        let again = hub.flow(core: core)
        _ = try await again.start(
            authRequestParams: AuthHubTestServer.parameters("demouser"), fieldsTobeEncryptedList: ["password"])
        _ = try await again.authenticatePassword(try core.encryptData(plainText: "Password1"))
        #expect(try await again.selectFactor("FIDO").nextAction == .fidoAuthGenerateChallenge)
        // A wrong origin is refused and the step can be retried.
        do {
            _ = try await again.authenticateWithPasskey(
                authenticator, documentDomain: "https://evil.example", userName: "demouser")
            Issue.record("a foreign documentDomain was accepted")
        } catch {
            #expect(error.serverCode == "3001036")
        }
        #expect(
            try await again.authenticateWithPasskey(authenticator, documentDomain: origin, userName: "demouser")
                .nextAction == .authAllowed)
    }

    @Test("the FIDO verifier refuses getTransports as an array, with the error nested in data")
    func transportsQuirk() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let core = AHCore()
        let flow = hub.flow(core: core)
        _ = try await flow.start(
            authRequestParams: AuthHubTestServer.parameters("demouser"), fieldsTobeEncryptedList: ["password"])
        _ = try await flow.authenticatePassword(try core.encryptData(plainText: "Password1"))
        _ = try await flow.selectFactor("FIDO")
        let origin = hub.host.hasSuffix("/") ? String(hub.host.dropLast()) : hub.host
        _ = try await flow.send(
            .registerChallengeGenerator, ["documentDomain": origin, "userName": "demouser", "deviceName": "t"])
        do {
            _ = try await flow.send(
                .registerChallengeVerifier,
                [
                    "id": "x", "rawId": "x", "type": "public-key",
                    "response": ["clientDataJSON": "e30", "attestationObject": "oA", "getTransports": ["internal"]],
                ])
            Issue.record("an array getTransports was accepted")
        } catch {
            #expect(error.serverCode == "3001036")
            #expect((await flow.lastResponse?.data["data"] as? [String: Any])?["errorCode"] as? String == "3001036")
        }
    }

    @Test("a logging request object on AHCore logs every call of a real flow with its secrets masked")
    func loggedFlow() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: file) }
        let logger = AHRequestLogger(fileName: file.path)
        logger.enableLog(enable: true)
        logger.setLoggingType(type: .data)
        let request = AuthHubBasicRequest()
        request.setRequestLogger(requestLogger: logger)
        let core = AHCore(request: request)
        let flow = AHFlow(
            address: AHServerAddress(serverHost: hub.host, tenant: "plain"), requestHeaders: hub.headers, core: core)
        let first = try await flow.start(authRequestParams: AuthHubTestServer.parameters("demouser"))
        let done = try await flow.authenticatePassword("Password1")
        let log = try String(contentsOf: file, encoding: .utf8)
        #expect(
            log.contains("POST /auth/v1/authenticate") && log.contains("POST /factor/v1/PasswordAuthenticator")
                && log.contains("AUTH_ALLOWED"))
        for secret in [
            hub.token, "Password1", try #require(first.flowState), try #require(done.idToken),
            try #require(done.sessionToken),
        ] {
            #expect(!log.contains(secret), "a secret reached the log")
        }
        #expect(log.contains("\"password\": \"*****\""))
    }

    @Test("nextaction values map both ways; unknown values and codes are kept")
    func nextActions() {
        #expect(AHNextAction(rawValue: "FIDO_AUTH_VERIFY_CHALLENGE") == .fidoAuthVerifyChallenge)
        #expect(AHNextAction.fidoAuthVerifyChallenge.rawValue == "FIDO_AUTH_VERIFY_CHALLENGE")
        #expect(
            AHNextAction(rawValue: "PUSH_SELECTION") == .other("PUSH_SELECTION")
                && AHNextAction(rawValue: "PUSH_SELECTION").rawValue == "PUSH_SELECTION")
        #expect(AHNextAction.authAllowed.isFinal && !AHNextAction.passwordAuth.isFinal)
        #expect(AHServerError(code: "0000011", message: "").kind?.needsNewFlow == true)
        #expect(AHServerError(code: "9999999", message: "odd").kind == nil)
    }
}
