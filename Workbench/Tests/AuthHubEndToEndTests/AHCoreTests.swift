@_spi(Tooling) import AuthHub
import Foundation
import HaapiRules
import Testing

/// Seed 002's core API against the dev server, in the serverHost + tenant form and the serverUrl (proxy) form.
@Suite("AHCore against the dev server", .serialized)
struct AHCoreTests {
    @Test("getInstance is one instance; getVersion; setAuthHubRequestObject takes a subclass and nil")
    func instance() {
        #expect(AHCore.getInstance() === AHCore.getInstance())
        #expect(AHCore.getVersion() == "2.3.2")
        final class Custom: AuthHubBasicRequest, @unchecked Sendable {}
        AHCore.getInstance().setAuthHubRequestObject(authhubRequest: Custom())
        AHCore.getInstance().setAuthHubRequestObject(authhubRequest: nil)
    }

    @Test(
        "getFieldsToBeEncryptedInAuthFlow and isEncryptionRequiredForField, async and completion, host+tenant and proxy URL"
    )
    func fieldsToEncrypt() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let core = AHCore()
        let byTenant = try await core.getFieldsToBeEncryptedInAuthFlow(
            serverHost: hub.host, tenant: "default", requestHeaders: hub.headers)
        #expect(byTenant.code == AHResult.Code.SUCCESS)
        #expect(byTenant.data[AHConstants.GenericKeys.FieldsToBeEncrypted] as? [String] == ["password"])
        let byProxy = try await core.getFieldsToBeEncryptedInAuthFlow(
            serverUrl: hub.host + "/gateway", requestHeaders: hub.headers)
        #expect(byProxy.data[AHConstants.GenericKeys.FieldsToBeEncrypted] as? [String] == ["password"])
        let plain = try await core.getFieldsToBeEncryptedInAuthFlow(
            serverHost: hub.host, tenant: "plain", requestHeaders: hub.headers)
        #expect(plain.isSuccess && (plain.data[AHConstants.GenericKeys.FieldsToBeEncrypted] as? [String]) == [])

        let password = try await core.isEncryptionRequiredForField(
            serverHost: hub.host, tenant: "default", requestHeaders: hub.headers, fieldName: "password")
        #expect(password.data[AHConstants.GenericKeys.PasswordField] as? Bool == true)
        let signature = try await core.isEncryptionRequiredForField(
            serverUrl: hub.host + "/gateway", requestHeaders: hub.headers, fieldName: "devicesignature")
        #expect(signature.isSuccess && signature.data["devicesignature"] as? Bool == false)

        // The completion forms: the block gets the same answer; the return value is what the instance already knew.
        let fresh = AHCore()
        let (known, viaBlock) = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<(Bool, AHCoreResult), any Error>) in
            do {
                let known = try fresh.isEncryptionRequiredForField(
                    serverUrl: hub.host + "/gateway", requestHeaders: hub.headers, fieldName: "password"
                ) { result in
                    continuation.resume(returning: (false, result))
                }
                #expect(known == false)
            } catch { continuation.resume(throwing: error) }
        }
        #expect(!known && viaBlock.data["password"] as? Bool == true)
        #expect(
            try fresh.isEncryptionRequiredForField(
                serverUrl: hub.host + "/gateway", requestHeaders: hub.headers, fieldName: "password"
            ) { _ in })
        let listed = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<AHCoreResult, any Error>) in
            do {
                try fresh.getFieldsToBeEncryptedInAuthFlow(
                    serverHost: hub.host, tenant: "default", requestHeaders: hub.headers
                ) { continuation.resume(returning: $0) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
        #expect(listed.data[AHConstants.GenericKeys.FieldsToBeEncrypted] as? [String] == ["password"])

        // Refusals: an address that cannot make a request throws at once; the server's refusals come back as results.
        #expect(throws: (any Error).self) {
            try core.getFieldsToBeEncryptedInAuthFlow(serverUrl: "ftp://nowhere", requestHeaders: [:]) { _ in }
        }
        let unknownTenant = try await core.getFieldsToBeEncryptedInAuthFlow(
            serverHost: hub.host, tenant: "nobody", requestHeaders: hub.headers)
        #expect(unknownTenant.code == AHResult.Code.SERVER_ERROR && unknownTenant.serverError?.code == "8000014")
        let badToken = try await core.getFieldsToBeEncryptedInAuthFlow(
            serverHost: hub.host, tenant: "default", requestHeaders: ["Authorization": "Bearer nope"])
        #expect(badToken.serverError?.kind == .invalidToken)
        let unreachable = try await core.getFieldsToBeEncryptedInAuthFlow(
            serverUrl: "http://127.0.0.1:1/x", requestHeaders: [:])
        #expect(unreachable.code == AHResult.Code.NETWORK_ERROR)
    }

    @Test(
        "initAuth in both forms: with the field list it makes a nonce exchange and names it; encryptData binds the password to it"
    )
    func initAuthBothForms() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let core = AHCore()
        #expect(throws: AHEncryptionError.noTenantKey) { try core.encryptData(plainText: "x") }
        let started = try await core.initAuth(
            serverHost: hub.host, tenant: "default", requestHeaders: hub.headers,
            authRequestParams: AuthHubTestServer.parameters("demouser"), fieldsTobeEncryptedList: ["password"])
        #expect(started.isSuccess && started.nextAction == .passwordAuth && started.flowState != nil)
        let encrypted = try core.encryptData(plainText: "Password1")
        #expect(encrypted.hasPrefix("v1."))
        let flow = AHFlow(
            address: AHServerAddress(serverHost: hub.host, tenant: "default"), requestHeaders: hub.headers, core: core)
        _ = try await flow.resume(from: started)
        #expect(try await flow.authenticatePassword(encrypted).nextAction == .factorSelection)

        // The proxy form, through the completion block; without a field list there is no exchange.
        let proxied = try await withCheckedThrowingContinuation {
            (continuation: CheckedContinuation<AHCoreResult, any Error>) in
            do {
                try core.initAuth(
                    serverUrl: hub.host + "/gateway", requestHeaders: hub.headers,
                    authRequestParams: AuthHubTestServer.parameters("demouser"),
                    fieldsTobeEncryptedList: nil
                ) { continuation.resume(returning: $0) }
            } catch { continuation.resume(throwing: error) }
        }
        #expect(proxied.isSuccess && proxied.nextAction == .passwordAuth)
        #expect(throws: AHEncryptionError.noNonceExchange) { try core.encryptData(plainText: "x") }
        // encryptDataWithPublicKey needs only the tenant key, which the instance keeps. Its bare RSA block is
        // bound to no flow (a captured one would work in any later flow), so a tenant that requires the
        // password encrypted refuses it: only the forms bound to the flow's nonce exchange pass.
        let flow2 = AHFlow(
            address: AHServerAddress(serverUrl: hub.host + "/gateway"), requestHeaders: hub.headers, core: core)
        _ = try await flow2.resume(from: proxied)
        do {
            _ = try await flow2.authenticatePassword(try core.encryptDataWithPublicKey(plainText: "Password1"))
            Issue.record("a bare RSA password was accepted by a tenant that requires encryption")
        } catch AHFlowError.server(let error) {
            #expect(error.code == "0000012")
        }

        let missing = try await core.initAuth(
            serverUrl: hub.host + "/gateway", requestHeaders: hub.headers, authRequestParams: [:],
            fieldsTobeEncryptedList: nil)
        #expect(missing.code == AHResult.Code.SERVER_ERROR && missing.serverError?.code == "3001036")
    }

    @Test(
        "devicesignature: initAuth seals iaAuthData with the exchange key; a plain one is refused; encryptDataWithSymmetricKey matches"
    )
    func deviceSignature() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let core = AHCore()
        var parameters = AuthHubTestServer.parameters("demouser")
        parameters["device"] = ["signature": ["iaAuthData": "_v02MyUgNGgYOi88"]]
        let plain = try await core.initAuth(
            serverHost: hub.host, tenant: "signed", requestHeaders: hub.headers, authRequestParams: parameters,
            fieldsTobeEncryptedList: nil)
        #expect(plain.serverError?.kind == .encryptedFieldUnreadable)
        let sealed = try await core.initAuth(
            serverHost: hub.host, tenant: "signed", requestHeaders: hub.headers, authRequestParams: parameters,
            fieldsTobeEncryptedList: ["password", "devicesignature"])
        #expect(sealed.isSuccess && sealed.nextAction == .passwordAuth, "\(sealed.message)")
        #expect(try core.encryptDataWithSymmetricKey(plainText: "tag").hasPrefix("v1s."))
        let flow = AHFlow(
            address: AHServerAddress(serverHost: hub.host, tenant: "signed"), requestHeaders: hub.headers, core: core)
        _ = try await flow.resume(from: sealed)
        let done = try await flow.authenticatePassword(try core.encryptDataWithSymmetricKey(plainText: "Password1"))
        #expect(done.nextAction == .authAllowed && done.idToken != nil)
    }

    /// Runs a completion-block call and waits for its block.
    static func viaBlock(
        _ call: (@escaping @Sendable (AHCoreResult) -> Void) throws -> Void
    ) async throws -> AHCoreResult {
        try await withCheckedThrowingContinuation { continuation in
            do { try call { continuation.resume(returning: $0) } } catch { continuation.resume(throwing: error) }
        }
    }

    @Test(
        "each of the three calls, async and with a completion block, in the host+tenant form and the proxy form: twelve variants"
    )
    func everyVariant() async throws {
        let hub = try await AuthHubTestServer.start()
        defer { Task { await hub.running.stop() } }
        let core = AHCore()
        let host = hub.host
        let proxy = hub.host + "/gateway"
        let headers = UncheckedHeaders(hub.headers)
        let params = UncheckedHeaders(AuthHubTestServer.parameters("demouser"))
        var results: [String: AHCoreResult] = [:]
        results["fields/host/async"] = try await core.getFieldsToBeEncryptedInAuthFlow(
            serverHost: host, tenant: "default", requestHeaders: headers.value)
        results["fields/proxy/async"] = try await core.getFieldsToBeEncryptedInAuthFlow(
            serverUrl: proxy, requestHeaders: headers.value)
        results["fields/host/block"] = try await Self.viaBlock {
            try core.getFieldsToBeEncryptedInAuthFlow(
                serverHost: host, tenant: "default", requestHeaders: headers.value, completionBlock: $0)
        }
        results["fields/proxy/block"] = try await Self.viaBlock {
            try core.getFieldsToBeEncryptedInAuthFlow(
                serverUrl: proxy, requestHeaders: headers.value, completionBlock: $0)
        }
        for (name, result) in results {
            #expect(
                result.isSuccess
                    && result.data[AHConstants.GenericKeys.FieldsToBeEncrypted] as? [String] == ["password"], "\(name)")
        }
        results = [:]
        results["required/host/async"] = try await core.isEncryptionRequiredForField(
            serverHost: host, tenant: "default", requestHeaders: headers.value, fieldName: "password")
        results["required/proxy/async"] = try await core.isEncryptionRequiredForField(
            serverUrl: proxy, requestHeaders: headers.value, fieldName: "password")
        results["required/host/block"] = try await Self.viaBlock {
            _ = try core.isEncryptionRequiredForField(
                serverHost: host, tenant: "default", requestHeaders: headers.value, fieldName: "password",
                completionBlock: $0)
        }
        results["required/proxy/block"] = try await Self.viaBlock {
            _ = try core.isEncryptionRequiredForField(
                serverUrl: proxy, requestHeaders: headers.value, fieldName: "password", completionBlock: $0)
        }
        for (name, result) in results {
            #expect(result.isSuccess && result.data[AHConstants.GenericKeys.PasswordField] as? Bool == true, "\(name)")
        }
        results = [:]
        results["init/host/async"] = try await core.initAuth(
            serverHost: host, tenant: "default", requestHeaders: headers.value, authRequestParams: params.value,
            fieldsTobeEncryptedList: ["password"])
        results["init/proxy/async"] = try await core.initAuth(
            serverUrl: proxy, requestHeaders: headers.value, authRequestParams: params.value,
            fieldsTobeEncryptedList: ["password"])
        results["init/host/block"] = try await Self.viaBlock {
            try core.initAuth(
                serverHost: host, tenant: "default", requestHeaders: headers.value, authRequestParams: params.value,
                fieldsTobeEncryptedList: nil, completionBlock: $0)
        }
        results["init/proxy/block"] = try await Self.viaBlock {
            try core.initAuth(
                serverUrl: proxy, requestHeaders: headers.value, authRequestParams: params.value,
                fieldsTobeEncryptedList: ["password"], completionBlock: $0)
        }
        for (name, result) in results {
            #expect(
                result.isSuccess && result.nextAction == .passwordAuth && result.flowState != nil,
                "\(name): \(result.message)")
        }
        // The proxy flow's states belong to the tenant behind the proxy: the host form continues it.
        let flow = AHFlow(
            address: AHServerAddress(serverHost: host, tenant: "default"), requestHeaders: headers.value, core: core)
        _ = try await flow.resume(from: try #require(results["init/proxy/block"]))
        #expect(
            try await flow.authenticatePassword(try core.encryptData(plainText: "Password1")).nextAction
                == .factorSelection)
    }
}

/// Test-only carrier of JSON-style dictionaries into `@Sendable` completion closures.
struct UncheckedHeaders: @unchecked Sendable {
    let value: [String: Any]
    init(_ value: [String: Any]) { self.value = value }
}
