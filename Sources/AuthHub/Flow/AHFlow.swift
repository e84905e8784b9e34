import Foundation
@_spi(Tooling) import HaapiModel

/// A running Authentication Hub flow: `start` calls `initAuth`, then each factor call sends the latest
/// `X-Flow-State` and takes the one the hub answers with, so callers never handle the chain themselves.
///
/// ```swift
/// let flow = AHFlow(address: AHServerAddress(serverHost: host, tenant: "default"), requestHeaders: ["Authorization": bearer])
/// var step = try await flow.start(authRequestParams: ["subject": "alice", "channel": "mobile", "action": "authenticate"],
///                                 fieldsTobeEncryptedList: fields)
/// if step.nextAction == .passwordAuth { step = try await flow.authenticatePassword(try core.encryptData(plainText: password)) }
/// ```
public actor AHFlow {
    /// The tenant the flow runs against.
    public let address: AHServerAddress
    /// The core this flow's calls and encryption go through: the flow's own unless one is passed in.
    public let core: AHCore
    private let requestHeaders: [String: String]
    /// The flow state the next call sends; `nil` before `start` and after the flow ends.
    public private(set) var flowState: String?
    /// The latest answer, error answers included.
    public private(set) var lastResponse: AHFlowResponse?

    /// - Parameters:
    ///   - address: the tenant's address (host and tenant, or a proxy URL).
    ///   - requestHeaders: sent with every call of the flow (the client's `Authorization`); values that are
    ///     not strings are sent as their description.
    ///   - core: pass `AHCore.getInstance()` (or an instance set up with a custom request object) to share
    ///     its tenant keys and request object; by default the flow has a core of its own, so two flows never
    ///     share a nonce exchange.
    public init(address: AHServerAddress, requestHeaders: [String: Any], core: AHCore = AHCore()) {
        self.address = address
        self.requestHeaders = AHCore.headers(requestHeaders)
        self.core = core
    }

    /// Begins the flow (POST `/auth/v1/authenticate` through `AHCore.initAuth`).
    public func start(
        authRequestParams: [String: Any], fieldsTobeEncryptedList: [String]? = nil
    ) async throws(AHFlowError) -> AHFlowResponse {
        flowState = nil
        let parameters: JSONObject
        do { parameters = try AHCore.parameters(authRequestParams) } catch { throw .invalidRequest("\(error)") }
        let result: AHCoreResult
        do {
            result = try await core.initAuth(address, requestHeaders, parameters, fieldsTobeEncryptedList)
        } catch {
            throw .transport("\(error)")
        }
        switch result.code {
        case AHResult.Code.NETWORK_ERROR: throw .transport(result.message)
        case AHResult.Code.ENCRYPTION_ERROR: throw .encryption(result.message)
        default: return try take(AHFlowResponse(statusCode: result.isSuccess ? 200 : 400, json: result.json))
        }
    }

    /// Adopts a flow begun elsewhere (for instance by a direct `AHCore.initAuth` call).
    public func resume(from result: AHCoreResult) throws(AHFlowError) -> AHFlowResponse {
        try take(AHFlowResponse(statusCode: result.isSuccess ? 200 : 400, json: result.json))
    }

    /// POST `/auth/v1/SelectedFactor`.
    public func selectFactor(_ factor: String) async throws(AHFlowError) -> AHFlowResponse {
        try await send(.selectedFactor, json: ["factor": .string(factor), "actionType": "FACTOR_SELECTION"])
    }

    /// POST `/factor/v1/PasswordAuthenticator`; pass the output of an `AHCore` encrypt call when the tenant
    /// wants the password encrypted.
    public func authenticatePassword(_ password: String) async throws(AHFlowError) -> AHFlowResponse {
        try await send(.passwordAuthenticator, json: ["password": .string(password), "actionType": "PASSWORD_AUTH"])
    }

    /// POST `/factor/v1/OTPGenerator` for a listed credential; `credType` is "EMAIL" or "SMS".
    public func generateOTP(
        credId: String, credType: String, language: String = "en_US"
    ) async throws(AHFlowError) -> AHFlowResponse {
        try await send(
            .otpGenerator,
            json: [
                "action": "Login", "credId": .string(credId), "credType": .string(credType.uppercased()),
                "language": .string(language),
            ])
    }

    /// POST `/factor/v1/OTPVerifier`.
    public func verifyOTP(credId: String, otp: String) async throws(AHFlowError) -> AHFlowResponse {
        try await send(.otpVerifier, json: ["credId": .string(credId), "otp": .string(otp)])
    }

    /// Any flow endpoint, with the flow state; the answer's flow state replaces the current one. A body
    /// member without a JSON form is refused with `.invalidRequest` before anything is sent.
    public func send(
        _ path: AuthHubEndpoint.Path, _ body: [String: Any], headers extra: [String: String] = [:]
    ) async throws(AHFlowError) -> AHFlowResponse {
        let json: JSONObject
        do { json = try AHCore.parameters(body) } catch { throw .invalidRequest("\(error)") }
        return try await send(path, json: json, headers: extra)
    }

    /// Any flow endpoint with a body of our JSON type.
    public func send(
        _ path: AuthHubEndpoint.Path, json body: JSONObject, headers extra: [String: String] = [:]
    ) async throws(AHFlowError) -> AHFlowResponse {
        guard let flowState else { throw .noFlowState }
        var headers = requestHeaders
        headers[AHConstants.HttpHeader.FlowState] = flowState
        for (name, value) in extra { headers[name] = value }
        let answer: AHRequestResult
        do { answer = try await core.send(address.endpoint(path), headers: headers, body: body) } catch {
            throw .transport("\(error)")
        }
        return try take(AHFlowResponse(statusCode: answer.statusCode, json: answer.json))
    }

    /// Takes the answer's flow state (errors that let the step be retried carry one too), then turns an error
    /// answer into `.server`.
    private func take(_ response: AHFlowResponse) throws(AHFlowError) -> AHFlowResponse {
        lastResponse = response
        if let next = response.flowState { flowState = next }
        if let error = AHServerError(body: response.json, httpStatus: response.statusCode) { throw .server(error) }
        guard (200..<300).contains(response.statusCode) else {
            throw .invalidResponse("HTTP \(response.statusCode) without an errorCode")
        }
        if response.nextAction?.isFinal == true { flowState = nil }
        return response
    }
}
