import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// The Authentication Hub core API of seed 002: the fields a tenant wants encrypted, `initAuth`, and the
/// three ways to encrypt a field (docs/AUTHHUB-ENCRYPTION.md). Every call has an `async` form and the seed's
/// completion-block form; both take the serverHost + tenant address or a proxy serverUrl.
///
/// The instance remembers, per tenant address, the tenant's public key, and, from the latest `initAuth`
/// that asked for encryption, the nonce exchange that `encryptData` and `encryptDataWithSymmetricKey` use.
///
/// Headers and parameters arrive as the seed's `[String: Any]`; they become `[String: String]` and our
/// `JSONObject` at the entry of each call, so nothing non-`Sendable` crosses into the tasks, and a parameter
/// without a JSON form is refused there (`AuthHubEndpoint.BuildError.bodyNotJSON`).
public final class AHCore: Sendable {
    /// Mutable state, read and written by synchronous seed APIs (the encrypt calls); network calls run
    /// outside the lock.
    private struct State: Sendable {
        var request: AuthHubBasicRequest
        var tenantKeys: [String: AHFieldEncryptor] = [:]
        var encryptedFields: [String: [String]] = [:]
        var activeKey: AHFieldEncryptor?
        var activeExchange: AHNonceExchange?
    }
    private let state: LockedValue<State>

    // The seed's API is a shared instance: its samples call `getInstance().initAuth` and then
    // `getInstance().encryptData` and rely on both reaching the same nonce exchange. It is the one
    // process-wide instance in the client modules; `AHFlow` and `AHFIDOSDK` make their own.
    private static let shared = AHCore()

    /// The shared instance the seed's samples use; `init(request:)` makes one of its own.
    public static func getInstance() -> AHCore { shared }

    /// The seed API level this module implements.
    public static func getVersion() -> String { "2.3.2" }

    /// An instance of its own (tests, or an app that talks to two hubs); most apps use `getInstance()`.
    public init(request: AuthHubBasicRequest? = nil) {
        state = LockedValue(State(request: request ?? AuthHubBasicRequest()))
    }

    /// The request object every call goes through; `nil` restores the default `AuthHubBasicRequest`.
    public func setAuthHubRequestObject(authhubRequest: AuthHubBasicRequest?) {
        state.withLock { $0.request = authhubRequest ?? AuthHubBasicRequest() }
    }

    var requestObject: AuthHubBasicRequest { state.get().request }

    // MARK: - Fields to be encrypted

    /// Reads the tenant's BrandingSettings at `serverHost`/`tenant`:
    /// `data[AHConstants.GenericKeys.FieldsToBeEncrypted]` lists the fields it wants encrypted, and the tenant key is
    /// fetched when the list is not empty.
    public func getFieldsToBeEncryptedInAuthFlow(
        serverHost: String, tenant: String, requestHeaders: [String: Any]
    ) async throws -> AHCoreResult {
        try await fieldsToBeEncrypted(
            AHServerAddress(serverHost: serverHost, tenant: tenant), Self.headers(requestHeaders))
    }

    /// The same through a proxy URL that already names the tenant.
    public func getFieldsToBeEncryptedInAuthFlow(
        serverUrl: String, requestHeaders: [String: Any]
    ) async throws -> AHCoreResult {
        try await fieldsToBeEncrypted(AHServerAddress(serverUrl: serverUrl), Self.headers(requestHeaders))
    }

    /// Either form, for callers that keep the address as a value.
    public func getFieldsToBeEncryptedInAuthFlow(
        address: AHServerAddress, requestHeaders: [String: Any]
    ) async throws -> AHCoreResult {
        try await fieldsToBeEncrypted(address, Self.headers(requestHeaders))
    }

    /// The completion-block form; it throws at once when the address is not usable, and the block runs on the main
    /// actor.
    public func getFieldsToBeEncryptedInAuthFlow(
        serverHost: String, tenant: String, requestHeaders: [String: Any],
        completionBlock: @escaping AHCompletionBlock
    ) throws {
        let headers = Self.headers(requestHeaders)
        try complete(AHServerAddress(serverHost: serverHost, tenant: tenant), completionBlock) {
            try await self.fieldsToBeEncrypted($0, headers)
        }
    }

    /// The completion-block form through a proxy URL.
    public func getFieldsToBeEncryptedInAuthFlow(
        serverUrl: String, requestHeaders: [String: Any],
        completionBlock: @escaping AHCompletionBlock
    ) throws {
        let headers = Self.headers(requestHeaders)
        try complete(AHServerAddress(serverUrl: serverUrl), completionBlock) {
            try await self.fieldsToBeEncrypted($0, headers)
        }
    }

    /// GETs the tenant's BrandingSettings; `data[AHConstants.GenericKeys.FieldsToBeEncrypted]` is the list
    /// (lower-cased; empty when the tenant encrypts nothing). When the list is not empty the tenant key is
    /// fetched too, so the encrypt calls work straight away.
    func fieldsToBeEncrypted(_ address: AHServerAddress, _ headers: [String: String]) async throws -> AHCoreResult {
        try address.validate()
        let answer: AHRequestResult
        do { answer = try await send(address.endpoint(.brandingSettings), headers: headers) } catch {
            return Self.networkFailure(error)
        }
        var result = Self.result(answer)
        guard result.isSuccess else { return result }
        let fields = AHBrandingSettings.fieldsToBeEncrypted(in: answer.json)
        state.withLock { $0.encryptedFields[address.baseURL] = fields }
        result.json[AHConstants.GenericKeys.FieldsToBeEncrypted] = .array(fields.map(JSONValue.string))
        if !fields.isEmpty, case .failure(let failure) = await tenantKey(address, headers) {
            return AHCoreResult(code: failure.code, message: failure.message, json: result.json)
        }
        return result
    }

    /// Whether the tenant wants `fieldName` encrypted: `data[fieldName]` is a `Bool`, and the full list is in
    /// `data[AHConstants.GenericKeys.FieldsToBeEncrypted]`.
    public func isEncryptionRequiredForField(
        serverHost: String, tenant: String, requestHeaders: [String: Any], fieldName: String
    ) async throws -> AHCoreResult {
        try await encryptionRequired(
            AHServerAddress(serverHost: serverHost, tenant: tenant), Self.headers(requestHeaders), fieldName)
    }

    /// The same through a proxy URL that already names the tenant.
    public func isEncryptionRequiredForField(
        serverUrl: String, requestHeaders: [String: Any], fieldName: String
    ) async throws -> AHCoreResult {
        try await encryptionRequired(AHServerAddress(serverUrl: serverUrl), Self.headers(requestHeaders), fieldName)
    }

    /// The completion gets the tenant's current answer in `data[fieldName]` (a `Bool`). The returned value is
    /// what this instance already knew when called (`false` until the tenant's settings have been read once).
    @discardableResult
    public func isEncryptionRequiredForField(
        serverHost: String, tenant: String, requestHeaders: [String: Any], fieldName: String,
        completionBlock: @escaping AHCompletionBlock
    ) throws -> Bool {
        let address = AHServerAddress(serverHost: serverHost, tenant: tenant)
        let headers = Self.headers(requestHeaders)
        try complete(address, completionBlock) { try await self.encryptionRequired($0, headers, fieldName) }
        return knownRequirement(address, fieldName)
    }

    /// The completion-block form through a proxy URL; it returns what this instance already knew.
    @discardableResult
    public func isEncryptionRequiredForField(
        serverUrl: String, requestHeaders: [String: Any], fieldName: String,
        completionBlock: @escaping AHCompletionBlock
    ) throws -> Bool {
        let address = AHServerAddress(serverUrl: serverUrl)
        let headers = Self.headers(requestHeaders)
        try complete(address, completionBlock) { try await self.encryptionRequired($0, headers, fieldName) }
        return knownRequirement(address, fieldName)
    }

    func knownRequirement(_ address: AHServerAddress, _ fieldName: String) -> Bool {
        state.get().encryptedFields[address.baseURL]?.contains(fieldName.lowercased()) ?? false
    }

    func encryptionRequired(
        _ address: AHServerAddress, _ headers: [String: String], _ fieldName: String
    ) async throws -> AHCoreResult {
        var result = try await fieldsToBeEncrypted(address, headers)
        let fields = result.json[AHConstants.GenericKeys.FieldsToBeEncrypted]?.arrayValue ?? []
        result.json[fieldName] = .bool(fields.contains(.string(fieldName.lowercased())))
        return result
    }

    // MARK: - initAuth

    /// Starts a flow: POSTs `authRequestParams` to `/auth/v1/authenticate`, after a nonce exchange when
    /// `fieldsTobeEncryptedList` is not empty. Throws when the address is not usable or a parameter has no JSON form.
    public func initAuth(
        serverHost: String, tenant: String, requestHeaders: [String: Any], authRequestParams: [String: Any],
        fieldsTobeEncryptedList: [String]?
    ) async throws -> AHCoreResult {
        try await initAuth(
            AHServerAddress(serverHost: serverHost, tenant: tenant), Self.headers(requestHeaders),
            try Self.parameters(authRequestParams), fieldsTobeEncryptedList)
    }

    /// The same through a proxy URL that already names the tenant.
    public func initAuth(
        serverUrl: String, requestHeaders: [String: Any], authRequestParams: [String: Any],
        fieldsTobeEncryptedList: [String]?
    ) async throws -> AHCoreResult {
        try await initAuth(
            AHServerAddress(serverUrl: serverUrl), Self.headers(requestHeaders), try Self.parameters(authRequestParams),
            fieldsTobeEncryptedList)
    }

    /// Throws before anything starts when the address is not usable or a parameter has no JSON form.
    public func initAuth(
        serverHost: String, tenant: String, requestHeaders: [String: Any], authRequestParams: [String: Any],
        fieldsTobeEncryptedList: [String]?, completionBlock: @escaping AHCompletionBlock
    ) throws {
        let parameters = try Self.parameters(authRequestParams)
        let headers = Self.headers(requestHeaders)
        try complete(AHServerAddress(serverHost: serverHost, tenant: tenant), completionBlock) {
            try await self.initAuth($0, headers, parameters, fieldsTobeEncryptedList)
        }
    }

    /// The completion-block form through a proxy URL.
    public func initAuth(
        serverUrl: String, requestHeaders: [String: Any], authRequestParams: [String: Any],
        fieldsTobeEncryptedList: [String]?, completionBlock: @escaping AHCompletionBlock
    ) throws {
        let parameters = try Self.parameters(authRequestParams)
        let headers = Self.headers(requestHeaders)
        try complete(AHServerAddress(serverUrl: serverUrl), completionBlock) {
            try await self.initAuth($0, headers, parameters, fieldsTobeEncryptedList)
        }
    }

    /// POSTs `/auth/v1/authenticate`. When `fields` is not empty, it first makes a nonce exchange with the
    /// tenant and names it in `authContext` (`nonceId`), and encrypts `device.signature.iaAuthData` with the
    /// exchange's key if "devicesignature" is listed. The exchange then serves `encryptData` and
    /// `encryptDataWithSymmetricKey` for the rest of this flow.
    func initAuth(
        _ address: AHServerAddress, _ headers: [String: String], _ parameters: JSONObject, _ fields: [String]?
    ) async throws -> AHCoreResult {
        try address.validate()
        var body = parameters
        let wanted = AHBrandingSettings.normalise(fields ?? [])
        state.withLock { $0.activeExchange = nil }
        if !wanted.isEmpty {
            switch await nonceExchange(address, headers) {
            case .failure(let failure):
                return AHCoreResult(code: failure.code, message: failure.message, json: failure.body)
            case .success(let (key, exchange)):
                body["authContext"] = Self.replacing("nonceId", with: exchange.nonceId, in: body["authContext"])
                if wanted.contains(AHConstants.GenericKeys.DeviceSignatureField) {
                    do { body = try Self.encryptingDeviceSignature(body, key: key, exchange: exchange) } catch {
                        return AHCoreResult(code: AHResult.Code.ENCRYPTION_ERROR, message: "\(error)", json: [:])
                    }
                }
                state.withLock {
                    $0.activeKey = key
                    $0.activeExchange = exchange
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
        let (key, exchange) = try activeKeyAndExchange()
        return try key.encryptData(plainText: plainText, exchange: exchange)
    }

    /// The seed's spelling of `encryptData(plainText:)`.
    @available(*, deprecated, renamed: "encryptData(plainText:)")
    public func encryptdData(plainText: String) throws -> String {
        try encryptData(plainText: plainText)
    }

    /// RSA-OAEP-SHA256 to the tenant key, not bound to any exchange.
    public func encryptDataWithPublicKey(plainText: String) throws -> String {
        guard let key = state.get().activeKey else { throw AHEncryptionError.noTenantKey }
        return try key.encryptDataWithPublicKey(plainText: plainText)
    }

    /// AES-256-GCM under the key of the current flow's nonce exchange (`v1s.` format).
    public func encryptDataWithSymmetricKey(plainText: String) throws -> String {
        let (key, exchange) = try activeKeyAndExchange()
        return try key.encryptDataWithSymmetricKey(plainText: plainText, exchange: exchange)
    }

    private func activeKeyAndExchange() throws -> (AHFieldEncryptor, AHNonceExchange) {
        let current = state.get()
        guard let key = current.activeKey else { throw AHEncryptionError.noTenantKey }
        guard let exchange = current.activeExchange else { throw AHEncryptionError.noNonceExchange }
        return (key, exchange)
    }

    // MARK: - Plumbing

    private func tenantKey(
        _ address: AHServerAddress, _ headers: [String: String]
    ) async -> Result<AHFieldEncryptor, AHCoreFailure> {
        let known = state.withLock { state -> AHFieldEncryptor? in
            guard let known = state.tenantKeys[address.baseURL] else { return nil }
            state.activeKey = known
            return known
        }
        if let known { return .success(known) }
        let answer: AHRequestResult
        do { answer = try await send(address.endpoint(.authHubPublicKey), headers: headers) } catch {
            return .failure(AHCoreFailure(Self.networkFailure(error)))
        }
        let result = Self.result(answer)
        guard result.isSuccess else { return .failure(AHCoreFailure(result)) }
        guard let pem = answer.json["publicKey"]?.stringValue else {
            return .failure(
                AHCoreFailure(code: AHResult.Code.INVALID_RESPONSE, message: "the public-key answer has no publicKey"))
        }
        do {
            let key = try AHFieldEncryptor(tenantKeyPEM: pem)
            state.withLock {
                $0.tenantKeys[address.baseURL] = key
                $0.activeKey = key
            }
            return .success(key)
        } catch {
            return .failure(AHCoreFailure(code: AHResult.Code.ENCRYPTION_ERROR, message: "\(error)"))
        }
    }

    private func nonceExchange(
        _ address: AHServerAddress, _ headers: [String: String]
    ) async -> Result<(AHFieldEncryptor, AHNonceExchange), AHCoreFailure> {
        let key: AHFieldEncryptor
        switch await tenantKey(address, headers) {
        case .success(let found): key = found
        case .failure(let failure): return .failure(failure)
        }
        do {
            let (clientNonce, sealed) = try key.startNonceExchange()
            let answer = try await send(
                address.endpoint(.serverNonceGenerator), headers: headers, body: ["clientNonce": .string(sealed)])
            let result = Self.result(answer)
            guard result.isSuccess else { return .failure(AHCoreFailure(result)) }
            guard let id = answer.json["id"]?.stringValue, let serverNonce = answer.json["serverNonce"]?.stringValue
            else {
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

    /// Sends one call through the request object. The endpoint is made here and handed to the request object
    /// alone, as the seed's customisation hook expects.
    func send(
        _ endpoint: AuthHubEndpoint, headers: [String: String], body: JSONObject = [:]
    ) async throws -> AHRequestResult {
        endpoint.setRequestHeaders(headers).setRequestPayload(body)
        return try await requestObject.sendRequest(endpoint: endpoint)
    }

    /// Headers as the strings they are sent as.
    static func headers(_ headers: [String: Any]) -> [String: String] {
        headers.mapValues { $0 as? String ?? "\($0)" }
    }

    /// Request parameters as JSON; refused, naming the members, when any has no JSON form.
    static func parameters(_ parameters: [String: Any]) throws(AuthHubEndpoint.BuildError) -> JSONObject {
        guard let object = JSONObject(foundationDictionary: parameters) else {
            throw .bodyNotJSON("\(JSONObject.membersWithoutJSONForm(in: parameters))")
        }
        return object
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
        if let error = AHServerError(body: answer.json, httpStatus: answer.statusCode) {
            return AHCoreResult(code: AHResult.Code.SERVER_ERROR, message: error.message, json: answer.json)
        }
        guard (200..<300).contains(answer.statusCode) else {
            return AHCoreResult(
                code: AHResult.Code.SERVER_ERROR, message: "HTTP \(answer.statusCode)", json: answer.json)
        }
        return AHCoreResult(code: AHResult.Code.SUCCESS, message: "OK", json: answer.json)
    }

    static func networkFailure(_ error: any Error) -> AHCoreResult {
        AHCoreResult(code: AHResult.Code.NETWORK_ERROR, message: "\(error)", json: [:])
    }

    /// `authContext` with `key` set to `value`, keeping the caller's other entries.
    static func replacing(_ key: String, with value: String, in context: JSONValue?) -> JSONValue {
        var entries = (context?.arrayValue ?? []).filter { $0["key"]?.stringValue != key }
        entries.append(["key": .string(key), "value": .string(value)])
        return .array(entries)
    }

    /// The body with `device.signature.iaAuthData` encrypted under the exchange's key; unchanged when the
    /// body has no such member.
    static func encryptingDeviceSignature(
        _ body: JSONObject, key: AHFieldEncryptor, exchange: AHNonceExchange
    ) throws -> JSONObject {
        guard var device = body["device"]?.objectValue, var signature = device["signature"]?.objectValue,
            let data = signature["iaAuthData"]?.stringValue
        else { return body }
        signature["iaAuthData"] = .string(try key.encryptDataWithSymmetricKey(plainText: data, exchange: exchange))
        device["signature"] = .object(signature)
        var result = body
        result["device"] = .object(device)
        return result
    }
}

/// A failed step on the way to a result, with the server's answer when there was one.
struct AHCoreFailure: Error {
    let code: Int
    let message: String
    let body: JSONObject

    init(code: Int, message: String) {
        self.code = code
        self.message = message
        body = [:]
    }

    init(_ result: AHCoreResult) {
        code = result.code
        message = result.message
        body = result.json
    }
}
