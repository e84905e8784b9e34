import Foundation
import HaapiDriver

/// The Authentication Hub core API of seed 002: the fields a tenant wants encrypted, `initAuth`, and the
/// three ways to encrypt a field (docs/AUTHHUB-ENCRYPTION.md). Every call has an `async` form and the seed's
/// completion-block form; both take the serverHost + tenant address or a proxy serverUrl.
///
/// The instance remembers, per tenant address, the tenant's public key, and, from the latest `initAuth`
/// that asked for encryption, the nonce exchange that `encryptData` and `encryptDataWithSymmetricKey` use.
public final class AHCore: @unchecked Sendable {
    // Mutable state is guarded by `lock`; network calls run outside it.
    private let lock = NSLock()
    private var request: AuthHubBasicRequest
    private var tenantKeys: [String: AHFieldEncryptor] = [:]
    private var encryptedFields: [String: [String]] = [:]
    private var activeKey: AHFieldEncryptor?
    private var activeExchange: AHNonceExchange?

    private static let shared = AHCore()

    /// The shared instance.
    public static func getInstance() -> AHCore { shared }

    /// The seed API level this module implements.
    public static func getVersion() -> String { "2.3.2" }

    /// An instance of its own (tests, or an app that talks to two hubs); most apps use `getInstance()`.
    public init(request: AuthHubBasicRequest? = nil) {
        self.request = request ?? AuthHubBasicRequest()
    }

    /// The request object every call goes through; `nil` restores the default `AuthHubBasicRequest`.
    public func setAuthHubRequestObject(authhubRequest: AuthHubBasicRequest?) {
        lock.withLock { request = authhubRequest ?? AuthHubBasicRequest() }
    }

    var requestObject: AuthHubBasicRequest { lock.withLock { request } }

    // MARK: - Fields to be encrypted

    public func getFieldsToBeEncryptedInAuthFlow(
        serverHost: String, tenant: String, requestHeaders: [String: Any]
    ) async throws -> AHCoreResult {
        try await fieldsToBeEncrypted(AHServerAddress(serverHost: serverHost, tenant: tenant), requestHeaders)
    }

    public func getFieldsToBeEncryptedInAuthFlow(
        serverUrl: String, requestHeaders: [String: Any]
    ) async throws -> AHCoreResult {
        try await fieldsToBeEncrypted(AHServerAddress(serverUrl: serverUrl), requestHeaders)
    }

    /// Either form, for callers that keep the address as a value.
    public func getFieldsToBeEncryptedInAuthFlow(
        address: AHServerAddress, requestHeaders: [String: Any]
    ) async throws -> AHCoreResult {
        try await fieldsToBeEncrypted(address, requestHeaders)
    }

    public func getFieldsToBeEncryptedInAuthFlow(
        serverHost: String, tenant: String, requestHeaders: [String: Any],
        completionBlock: @escaping AHCompletionBlock
    ) throws {
        let headers = UncheckedDictionary(requestHeaders)
        try complete(AHServerAddress(serverHost: serverHost, tenant: tenant), completionBlock) {
            try await self.fieldsToBeEncrypted($0, headers.value)
        }
    }

    public func getFieldsToBeEncryptedInAuthFlow(
        serverUrl: String, requestHeaders: [String: Any],
        completionBlock: @escaping AHCompletionBlock
    ) throws {
        let headers = UncheckedDictionary(requestHeaders)
        try complete(AHServerAddress(serverUrl: serverUrl), completionBlock) {
            try await self.fieldsToBeEncrypted($0, headers.value)
        }
    }

    /// GETs the tenant's BrandingSettings; `data[AHConstants.GenericKeys.FieldsToBeEncrypted]` is the list
    /// (lower-cased; empty when the tenant encrypts nothing). When the list is not empty the tenant key is
    /// fetched too, so the encrypt calls work straight away.
    func fieldsToBeEncrypted(_ address: AHServerAddress, _ headers: [String: Any]) async throws -> AHCoreResult {
        try address.validate()
        let answer: AHRequestResult
        do { answer = try await send(address.endpoint(.brandingSettings), headers: headers) } catch {
            return Self.networkFailure(error)
        }
        var result = Self.result(answer)
        guard result.isSuccess else { return result }
        let fields = AHBrandingSettings.fieldsToBeEncrypted(in: answer.data)
        lock.withLock { encryptedFields[address.baseURL] = fields }
        result.data[AHConstants.GenericKeys.FieldsToBeEncrypted] = fields
        if !fields.isEmpty {
            let key = await tenantKey(address, headers)
            if case .failure(let failure) = key {
                return AHCoreResult(code: failure.code, message: failure.message, data: result.data)
            }
        }
        return result
    }

    public func isEncryptionRequiredForField(
        serverHost: String, tenant: String, requestHeaders: [String: Any], fieldName: String
    ) async throws -> AHCoreResult {
        try await encryptionRequired(AHServerAddress(serverHost: serverHost, tenant: tenant), requestHeaders, fieldName)
    }

    public func isEncryptionRequiredForField(
        serverUrl: String, requestHeaders: [String: Any], fieldName: String
    ) async throws -> AHCoreResult {
        try await encryptionRequired(AHServerAddress(serverUrl: serverUrl), requestHeaders, fieldName)
    }

    /// The completion gets the tenant's current answer in `data[fieldName]` (a `Bool`). The returned value is
    /// what this instance already knew when called (`false` until the tenant's settings have been read once).
    @discardableResult
    public func isEncryptionRequiredForField(
        serverHost: String, tenant: String, requestHeaders: [String: Any], fieldName: String,
        completionBlock: @escaping AHCompletionBlock
    ) throws -> Bool {
        let address = AHServerAddress(serverHost: serverHost, tenant: tenant)
        let headers = UncheckedDictionary(requestHeaders)
        try complete(address, completionBlock) { try await self.encryptionRequired($0, headers.value, fieldName) }
        return knownRequirement(address, fieldName)
    }

    @discardableResult
    public func isEncryptionRequiredForField(
        serverUrl: String, requestHeaders: [String: Any], fieldName: String,
        completionBlock: @escaping AHCompletionBlock
    ) throws -> Bool {
        let address = AHServerAddress(serverUrl: serverUrl)
        let headers = UncheckedDictionary(requestHeaders)
        try complete(address, completionBlock) { try await self.encryptionRequired($0, headers.value, fieldName) }
        return knownRequirement(address, fieldName)
    }

    func knownRequirement(_ address: AHServerAddress, _ fieldName: String) -> Bool {
        lock.withLock { encryptedFields[address.baseURL]?.contains(fieldName.lowercased()) ?? false }
    }

    func encryptionRequired(
        _ address: AHServerAddress, _ headers: [String: Any], _ fieldName: String
    ) async throws -> AHCoreResult {
        var result = try await fieldsToBeEncrypted(address, headers)
        let fields = result.data[AHConstants.GenericKeys.FieldsToBeEncrypted] as? [String] ?? []
        result.data[fieldName] = fields.contains(fieldName.lowercased())
        return result
    }

    // MARK: - initAuth

    public func initAuth(
        serverHost: String, tenant: String, requestHeaders: [String: Any], authRequestParams: [String: Any],
        fieldsTobeEncryptedList: [String]?
    ) async throws -> AHCoreResult {
        try await initAuth(
            AHServerAddress(serverHost: serverHost, tenant: tenant), requestHeaders, authRequestParams,
            fieldsTobeEncryptedList)
    }

    public func initAuth(
        serverUrl: String, requestHeaders: [String: Any], authRequestParams: [String: Any],
        fieldsTobeEncryptedList: [String]?
    ) async throws -> AHCoreResult {
        try await initAuth(
            AHServerAddress(serverUrl: serverUrl), requestHeaders, authRequestParams, fieldsTobeEncryptedList)
    }

    public func initAuth(
        serverHost: String, tenant: String, requestHeaders: [String: Any], authRequestParams: [String: Any],
        fieldsTobeEncryptedList: [String]?, completionBlock: @escaping AHCompletionBlock
    ) throws {
        let parameters = UncheckedDictionary(authRequestParams)
        let headers = UncheckedDictionary(requestHeaders)
        try complete(AHServerAddress(serverHost: serverHost, tenant: tenant), completionBlock) {
            try await self.initAuth($0, headers.value, parameters.value, fieldsTobeEncryptedList)
        }
    }

    public func initAuth(
        serverUrl: String, requestHeaders: [String: Any], authRequestParams: [String: Any],
        fieldsTobeEncryptedList: [String]?, completionBlock: @escaping AHCompletionBlock
    ) throws {
        let parameters = UncheckedDictionary(authRequestParams)
        let headers = UncheckedDictionary(requestHeaders)
        try complete(AHServerAddress(serverUrl: serverUrl), completionBlock) {
            try await self.initAuth($0, headers.value, parameters.value, fieldsTobeEncryptedList)
        }
    }

    /// POSTs `/auth/v1/authenticate`. When `fields` is not empty, it first makes a nonce exchange with the
    /// tenant and names it in `authContext` (`nonceId`), and encrypts `device.signature.iaAuthData` with the
    /// exchange's key if "devicesignature" is listed. The exchange then serves `encryptData` and
    /// `encryptDataWithSymmetricKey` for the rest of this flow.
    func initAuth(
        _ address: AHServerAddress, _ headers: [String: Any], _ parameters: [String: Any], _ fields: [String]?
    ) async throws -> AHCoreResult {
        try address.validate()
        var body = parameters
        let wanted = AHBrandingSettings.normalise(fields ?? [])
        lock.withLock { activeExchange = nil }
        if !wanted.isEmpty {
            switch await nonceExchange(address, headers) {
            case .failure(let failure):
                return AHCoreResult(code: failure.code, message: failure.message, data: failure.data)
            case .success(let (key, exchange)):
                body["authContext"] = Self.replacing("nonceId", with: exchange.nonceId, in: body["authContext"])
                if wanted.contains(AHConstants.GenericKeys.DeviceSignatureField) {
                    do { body = try Self.encryptingDeviceSignature(body, key: key, exchange: exchange) } catch {
                        return AHCoreResult(code: AHResult.Code.ENCRYPTION_ERROR, message: "\(error)", data: [:])
                    }
                }
                lock.withLock {
                    activeKey = key
                    activeExchange = exchange
                }
            }
        }
        do { return Self.result(try await send(address.endpoint(.authEndpoint), headers: headers, body: body)) } catch {
            return Self.networkFailure(error)
        }
    }

    // MARK: - Encryption

    /// RSA-OAEP-SHA256 to the tenant key, bound to the current flow's server nonce (`v1.` format).
    public func encryptData(plainText: String) throws -> String {
        let (key, exchange) = lock.withLock { (activeKey, activeExchange) }
        guard let key else { throw AHEncryptionError.noTenantKey }
        guard let exchange else { throw AHEncryptionError.noNonceExchange }
        return try key.encryptData(plainText: plainText, exchange: exchange)
    }

    /// The seed's spelling of `encryptData(plainText:)`.
    @available(*, deprecated, renamed: "encryptData(plainText:)")
    public func encryptdData(plainText: String) throws -> String {
        try encryptData(plainText: plainText)
    }

    /// RSA-OAEP-SHA256 to the tenant key, not bound to any exchange.
    public func encryptDataWithPublicKey(plainText: String) throws -> String {
        guard let key = lock.withLock({ activeKey }) else { throw AHEncryptionError.noTenantKey }
        return try key.encryptDataWithPublicKey(plainText: plainText)
    }

    /// AES-256-GCM under the key of the current flow's nonce exchange (`v1s.` format).
    public func encryptDataWithSymmetricKey(plainText: String) throws -> String {
        let (key, exchange) = lock.withLock { (activeKey, activeExchange) }
        guard let key else { throw AHEncryptionError.noTenantKey }
        guard let exchange else { throw AHEncryptionError.noNonceExchange }
        return try key.encryptDataWithSymmetricKey(plainText: plainText, exchange: exchange)
    }

    // MARK: - Plumbing

    private func tenantKey(
        _ address: AHServerAddress, _ headers: [String: Any]
    ) async -> Result<AHFieldEncryptor, AHCoreFailure> {
        if let known = lock.withLock({ tenantKeys[address.baseURL] }) {
            lock.withLock { activeKey = known }
            return .success(known)
        }
        let answer: AHRequestResult
        do { answer = try await send(address.endpoint(.authHubPublicKey), headers: headers) } catch {
            return .failure(AHCoreFailure(Self.networkFailure(error)))
        }
        let result = Self.result(answer)
        guard result.isSuccess else { return .failure(AHCoreFailure(result)) }
        guard let pem = answer.data["publicKey"] as? String else {
            return .failure(
                AHCoreFailure(code: AHResult.Code.INVALID_RESPONSE, message: "the public-key answer has no publicKey"))
        }
        do {
            let key = try AHFieldEncryptor(tenantKeyPEM: pem)
            lock.withLock {
                tenantKeys[address.baseURL] = key
                activeKey = key
            }
            return .success(key)
        } catch {
            return .failure(AHCoreFailure(code: AHResult.Code.ENCRYPTION_ERROR, message: "\(error)"))
        }
    }

    private func nonceExchange(
        _ address: AHServerAddress, _ headers: [String: Any]
    ) async -> Result<(AHFieldEncryptor, AHNonceExchange), AHCoreFailure> {
        let key: AHFieldEncryptor
        switch await tenantKey(address, headers) {
        case .success(let found): key = found
        case .failure(let failure): return .failure(failure)
        }
        do {
            let (clientNonce, sealed) = try key.startNonceExchange()
            let answer = try await send(
                address.endpoint(.serverNonceGenerator), headers: headers, body: ["clientNonce": sealed])
            let result = Self.result(answer)
            guard result.isSuccess else { return .failure(AHCoreFailure(result)) }
            guard let id = answer.data["id"] as? String, let serverNonce = answer.data["serverNonce"] as? String else {
                return .failure(
                    AHCoreFailure(
                        code: AHResult.Code.INVALID_RESPONSE, message: "the nonce answer has no id or serverNonce"))
            }
            return .success(
                (
                    key,
                    try key.finishNonceExchange(clientNonce: clientNonce, nonceId: id, sealedServerNonce: serverNonce)
                ))
        } catch let error as AHEncryptionError {
            return .failure(AHCoreFailure(code: AHResult.Code.ENCRYPTION_ERROR, message: "\(error)"))
        } catch {
            return .failure(AHCoreFailure(Self.networkFailure(error)))
        }
    }

    /// The flow's entry points: the dictionaries cross from the flow actor wrapped.
    func send(
        _ endpoint: AuthHubEndpoint, headers: UncheckedDictionary, body: UncheckedDictionary
    ) async throws -> AHRequestResult {
        try await send(endpoint, headers: headers.value, body: body.value)
    }

    func initAuth(
        _ address: AHServerAddress, _ headers: UncheckedDictionary, _ parameters: UncheckedDictionary,
        _ fields: [String]?
    ) async throws -> AHCoreResult {
        try await initAuth(address, headers.value, parameters.value, fields)
    }

    func send(
        _ endpoint: AuthHubEndpoint, headers: [String: Any], body: [String: Any] = [:]
    ) async throws -> AHRequestResult {
        endpoint.setRequestHeaders(headers).setRequestPayloadParameters(body)
        return try await requestObject.sendRequest(endpoint: endpoint)
    }

    /// Runs `work` for a completion-block API: a bad address throws before anything starts; the block runs on
    /// the main actor, and what it throws is logged (it has no caller to go to).
    private func complete(
        _ address: AHServerAddress, _ completion: @escaping AHCompletionBlock,
        _ work: @escaping @Sendable (AHServerAddress) async throws -> AHCoreResult
    ) throws {
        try address.validate()
        Task {
            let result: AHCoreResult
            do { result = try await work(address) } catch { result = Self.networkFailure(error) }
            await Self.deliver(result, to: completion)
        }
    }

    @MainActor
    private static func deliver(_ result: AHCoreResult, to completion: AHCompletionBlock) {
        do { try completion(result) } catch {
            HaapiLogger.error(
                SdkFollowUpTag.flow, "an Authentication Hub completion block threw: \(String(describing: error))")
        }
    }

    static func result(_ answer: AHRequestResult) -> AHCoreResult {
        if let error = AHServerError(body: answer.data, httpStatus: answer.statusCode) {
            return AHCoreResult(code: AHResult.Code.SERVER_ERROR, message: error.message, data: answer.data)
        }
        guard (200..<300).contains(answer.statusCode) else {
            return AHCoreResult(
                code: AHResult.Code.SERVER_ERROR, message: "HTTP \(answer.statusCode)", data: answer.data)
        }
        return AHCoreResult(code: AHResult.Code.SUCCESS, message: "OK", data: answer.data)
    }

    static func networkFailure(_ error: any Error) -> AHCoreResult {
        AHCoreResult(code: AHResult.Code.NETWORK_ERROR, message: "\(error)", data: [:])
    }

    /// `authContext` with `key` set to `value`, keeping the caller's other entries.
    static func replacing(_ key: String, with value: String, in context: Any?) -> [[String: Any]] {
        var entries = (context as? [[String: Any]] ?? []).filter { $0["key"] as? String != key }
        entries.append(["key": key, "value": value])
        return entries
    }

    static func encryptingDeviceSignature(
        _ body: [String: Any], key: AHFieldEncryptor, exchange: AHNonceExchange
    ) throws -> [String: Any] {
        guard var device = body["device"] as? [String: Any], var signature = device["signature"] as? [String: Any],
            let data = signature["iaAuthData"] as? String
        else { return body }
        signature["iaAuthData"] = try key.encryptDataWithSymmetricKey(plainText: data, exchange: exchange)
        device["signature"] = signature
        var result = body
        result["device"] = device
        return result
    }
}

/// A failed step on the way to a result, with the server's answer when there was one.
struct AHCoreFailure: Error {
    let code: Int
    let message: String
    let body: UncheckedDictionary

    var data: [String: Any] { body.value }

    init(code: Int, message: String) {
        self.code = code
        self.message = message
        body = UncheckedDictionary([:])
    }

    init(_ result: AHCoreResult) {
        code = result.code
        message = result.message
        body = UncheckedDictionary(result.data)
    }
}

/// Carries a JSON-style dictionary into a task; its values are plain JSON values that are never mutated.
struct UncheckedDictionary: @unchecked Sendable {
    let value: [String: Any]
    init(_ value: [String: Any]) { self.value = value }
}
