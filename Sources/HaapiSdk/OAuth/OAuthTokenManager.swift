import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// Plain OAuth after the flow: redeem the code, refresh, revoke. With a bound configuration every request
/// carries a DPoP proof from the flow's key, and refreshes keep using that key.
public final class OAuthTokenManager: Sendable {
    /// The client, endpoints and token binding this manager uses.
    public let configuration: any OAuthTokenConfigurable
    let exchange: TokenEndpointExchange
    private let state: RefreshState
    /// Set for the manager of `HaapiAccessorBuilder.build()`: every call goes to the manager it decides on.
    private let deferred: DeferredAccess?

    /// - Parameters:
    ///   - oauthTokenConfiguration: the client, its endpoints and transport, and whether tokens are bound.
    ///   - nonceStore: where `DPoP-Nonce`s are kept; by default the configuration's store (a
    ///     `HaapiConfiguration` shares it with its HAAPI flow), or one of this manager's own.
    public init(oauthTokenConfiguration: any OAuthTokenConfigurable, nonceStore: DPoPNonceStore? = nil) {
        configuration = oauthTokenConfiguration
        exchange = TokenEndpointExchange(
            transport: oauthTokenConfiguration.transport,
            nonces: nonceStore ?? oauthTokenConfiguration.dpopNonceStore ?? DPoPNonceStore())
        state = RefreshState()
        deferred = nil
    }

    init(deferringTo access: DeferredAccess, configuration: HaapiConfiguration) {
        self.configuration = configuration
        exchange = TokenEndpointExchange(
            transport: configuration.transport, nonces: configuration.dpopNonceStore ?? DPoPNonceStore())
        state = RefreshState()
        deferred = access
    }

    /// The manager the calls go to: this one, or the one a deferred build decided on.
    private func target() async -> Result<OAuthTokenManager, HaapiError> {
        guard let deferred else { return .success(self) }
        return await deferred.resolve().map(\.oauth)
    }

    private var isUnbounded: Bool { configuration.tokenBoundConfiguration is UnboundedTokenConfiguration }

    /// Redeems an authorization code. Pass `HaapiManager.dpop` when the configuration is bound; with
    /// `UnboundedTokenConfiguration` a DPoP is refused (`.invalidConfiguration`). Without `codeVerifier`,
    /// the PKCE verifier a `HaapiManager` of this configuration recorded for this code is sent.
    public func fetchAccessToken(
        with code: String, dpop: Dpop? = nil, codeVerifier: String? = nil,
        additionalParameters: [String: String] = [:]
    ) async -> TokenResponse {
        switch await target() {
        case .failure(let error): return .error(error)
        case .success(let manager) where manager !== self:
            return await manager.fetchAccessToken(
                with: code, dpop: dpop, codeVerifier: codeVerifier, additionalParameters: additionalParameters)
        case .success: break
        }
        if dpop != nil, isUnbounded {
            return .error(
                HaapiError.invalidConfiguration(
                    reason: "a DPoP was passed but the configuration is UnboundedTokenConfiguration"))
        }
        var form: [(name: String, value: String)] = [
            ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", configuration.appRedirect),
        ]
        // The store a HaapiManager of the same HaapiConfiguration recorded the verifier in; other configuration
        // types have none (their apps pass the verifier: HaapiManager.codeVerifier(for:)).
        if let verifier = codeVerifier ?? (configuration as? HaapiConfiguration)?.codeVerifiers.take(for: code) {
            form.append(("code_verifier", verifier))
        }
        for name in additionalParameters.keys.sorted() where !form.contains(where: { $0.name == name }) {
            form.append((name, additionalParameters[name] ?? ""))
        }
        let response = await tokenRequest(form, dpop: dpop, previousRefreshToken: nil)
        if case .successfulToken = response, let dpop { await state.bind(dpop) }
        return response
    }

    /// Refreshes. Concurrent calls with the same refresh token share one request; a token that was already
    /// rotated is never sent again (its callers get the rotation's result). `dpop` defaults to the key the
    /// code was redeemed with, and after a relaunch (a new manager) to the configuration's device key: its
    /// `dpopKey`, or the key `HaapiManager` keeps in `dpopKeyStorage` under the same configuration name.
    public func refreshAccessToken(
        with refreshToken: String, dpop: Dpop? = nil, additionalParameters: [String: String] = [:]
    ) async -> TokenResponse {
        switch await target() {
        case .failure(let error): return .error(error)
        case .success(let manager) where manager !== self:
            return await manager.refreshAccessToken(
                with: refreshToken, dpop: dpop, additionalParameters: additionalParameters)
        case .success: break
        }
        if dpop != nil, isUnbounded {
            return .error(
                HaapiError.invalidConfiguration(
                    reason: "a DPoP was passed but the configuration is UnboundedTokenConfiguration"))
        }
        let bound = await state.boundDPoP
        let proofKey = isUnbounded ? nil : (dpop ?? bound ?? storedDPoP())
        return await state.refresh(refreshToken) { [self] in
            var form: [(name: String, value: String)] = [
                ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
            ]
            for name in additionalParameters.keys.sorted() where !form.contains(where: { $0.name == name }) {
                form.append((name, additionalParameters[name] ?? ""))
            }
            return await tokenRequest(form, dpop: proofKey, previousRefreshToken: refreshToken)
        }
    }

    /// The device key a relaunched app's configuration names (see `refreshAccessToken`); never creates one.
    private func storedDPoP() -> Dpop? {
        guard let concrete = configuration as? HaapiConfiguration else { return nil }
        if let key = concrete.dpopKey { return Dpop(key: key) }
        guard let storage = concrete.dpopKeyStorage else { return nil }
        let store = DeviceKeyStore(storage: storage, keyType: concrete.tokenBoundConfiguration.keyPairType)
        // `try?` flattens the optional: nil for no stored key and for an unreadable one alike.
        guard let key = try? store.load(name: concrete.name + "." + concrete.clientId) else { return nil }
        return Dpop(key: key)
    }

    /// Revokes an access token (RFC 7009).
    public func revokeAccessToken(_ accessToken: String) async -> TokenRevocationResponse {
        await revoke(accessToken, hint: "access_token")
    }

    /// Revokes a refresh token (RFC 7009); the server revokes the tokens issued from it.
    public func revokeRefreshToken(_ refreshToken: String) async -> TokenRevocationResponse {
        await revoke(refreshToken, hint: "refresh_token")
    }

    /// RFC 7662 introspection with the client's credentials: the server's JSON answer (`active`, …).
    /// A public client has no credentials to introspect with: pass the `dpop` the token is bound to, whose
    /// proof authenticates the request.
    public func introspect(_ token: String, dpop: Dpop? = nil) async -> Result<JSONObject, HaapiError> {
        switch await target() {
        case .failure(let error): return .failure(error)
        case .success(let manager) where manager !== self: return await manager.introspect(token, dpop: dpop)
        case .success: break
        }
        guard let endpoint = configuration.introspectionEndpointURL else {
            return .failure(.invalidConfiguration(reason: "no introspectionEndpointURL in the configuration"))
        }
        let method = configuration.clientAuthenticationMethod
        let clientId = configuration.clientId
        do throws(HaapiError) {
            let response = try await exchange.post(
                TokenEndpointRequest(url: endpoint, form: [("token", token)]), dpop: dpop
            ) { request throws(HaapiError) in
                try method.authenticate(&request, clientId: clientId)
            }
            guard response.statusCode == 200 else { throw response.oauthError }
            return .success(try response.oauthObject())
        } catch {
            return .failure(error)
        }
    }

    private func revoke(_ token: String, hint: String) async -> TokenRevocationResponse {
        switch await target() {
        case .failure(let error): return .error(error)
        case .success(let manager) where manager !== self: return await manager.revoke(token, hint: hint)
        case .success: break
        }
        guard let endpoint = configuration.revocationEndpointURL else {
            return .error(HaapiError.invalidConfiguration(reason: "no revocationEndpointURL in the configuration"))
        }
        let method = configuration.clientAuthenticationMethod
        let clientId = configuration.clientId
        let request = TokenEndpointRequest(url: endpoint, form: [("token", token), ("token_type_hint", hint)])
        HaapiLogger.debug(SdkFollowUpTag.http, "POST \(sensitive: endpoint.absoluteString) (revoke a \(hint))")
        do throws(HaapiError) {
            let response = try await exchange.post(request, dpop: nil) { request throws(HaapiError) in
                try method.authenticate(&request, clientId: clientId)
            }
            if response.statusCode == 200 { return .success }
            if let object = try? response.oauthObject(), let error = ErrorTokenResponse(object) {
                return .errorToken(error)
            }
            return .error(HaapiError.invalidStatusCode(statusCode: response.statusCode))
        } catch {
            return .error(error)
        }
    }

    private func tokenRequest(
        _ form: [(name: String, value: String)], dpop: Dpop?, previousRefreshToken: String?
    ) async -> TokenResponse {
        let method = configuration.clientAuthenticationMethod
        let clientId = configuration.clientId
        let listener = configuration.tokenEndpointResponseListener
        let response: HTTPResponse
        let grant = form.first { $0.name == "grant_type" }?.value ?? "?"
        HaapiLogger.debug(
            SdkFollowUpTag.http, "POST \(sensitive: configuration.tokenEndpointURL.absoluteString) (grant \(grant))")
        do throws(HaapiError) {
            response = try await exchange.post(
                TokenEndpointRequest(url: configuration.tokenEndpointURL, form: form), dpop: dpop
            ) {
                request throws(HaapiError) in try method.authenticate(&request, clientId: clientId)
            }
        } catch {
            HaapiLogger.warning(SdkFollowUpTag.http, "the token request (grant \(grant)) failed: \(error)")
            await listener?.onError(ErrorHTTPURLResponseContent(nil, error: error))
            return .error(error)
        }
        do throws(HaapiError) {
            let object: JSONObject
            do throws(HaapiError) {
                object = try response.oauthObject()
            } catch {
                // A refusal without an OAuth error body (some servers answer 401 with nothing) is still a refusal,
                // and a 5xx page a retryable server error: the status says more than the unreadable body.
                guard response.statusCode == 200 else { throw response.oauthError }
                throw error
            }
            if response.statusCode == 200 {
                let token = try SuccessfulTokenResponse(object, keepingRefreshToken: previousRefreshToken)
                HaapiLogger.info(SdkFollowUpTag.oauth, "token response: \(token)")
                await listener?.onSuccess(SuccessTokenHTTPURLResponseContent(response, token))
                return .successfulToken(token)
            }
            if let error = ErrorTokenResponse(object) {
                HaapiLogger.info(SdkFollowUpTag.oauth, "token endpoint refused: \(error.error)")
                await listener?.onTokenError(ErrorTokenHTTPURLResponseContent(response, error))
                return .errorToken(error)
            }
            throw HaapiError.invalidStatusCode(statusCode: response.statusCode)
        } catch {
            await listener?.onError(ErrorHTTPURLResponseContent(response, error: error))
            return .error(error)
        }
    }
}

/// One refresh in flight per refresh token, and a memory of rotations so a replaced token is never sent again.
actor RefreshState {
    private(set) var boundDPoP: Dpop?
    private var inflight: [String: Task<TokenResponse, Never>] = [:]
    private var rotations: [(old: String, result: TokenResponse)] = []
    private static let rememberedRotations = 32

    func bind(_ dpop: Dpop) { boundDPoP = dpop }

    func refresh(_ token: String, perform: @escaping @Sendable () async -> TokenResponse) async -> TokenResponse {
        if let rotated = rotations.last(where: { $0.old == token }) {
            HaapiLogger.debug(SdkFollowUpTag.oauth, "refresh token already rotated; returning the rotation's result")
            return rotated.result
        }
        if let running = inflight[token] { return await running.value }
        let task = Task { await perform() }
        inflight[token] = task
        let result = await task.value
        inflight[token] = nil
        if case .successfulToken(let success) = result, let next = success.refreshToken, next != token {
            rotations.append((token, result))
            if rotations.count > Self.rememberedRotations { rotations.removeFirst() }
        }
        return result
    }
}

// The completion-handler forms: the request runs off the main actor, the completion on it.
extension OAuthTokenManager {
    /// The completion form of `fetchAccessToken(with:dpop:codeVerifier:additionalParameters:)`; it runs on the main
    /// actor.
    public func fetchAccessToken(with code: String, dpop: Dpop? = nil, completion: @escaping OAuthCompletion) {
        Task { await completion(await fetchAccessToken(with: code, dpop: dpop)) }
    }

    /// The completion form of `refreshAccessToken(with:dpop:additionalParameters:)`; it runs on the main actor.
    public func refreshAccessToken(with refreshToken: String, dpop: Dpop? = nil, completion: @escaping OAuthCompletion)
    {
        Task { await completion(await refreshAccessToken(with: refreshToken, dpop: dpop)) }
    }

    /// The completion form of `revokeAccessToken(_:)`; it runs on the main actor.
    public func revokeAccessToken(_ accessToken: String, completion: @escaping OAuthRevocationCompletion) {
        Task { await completion(await revokeAccessToken(accessToken)) }
    }

    /// The completion form of `revokeRefreshToken(_:)`; it runs on the main actor.
    public func revokeRefreshToken(_ refreshToken: String, completion: @escaping OAuthRevocationCompletion) {
        Task { await completion(await revokeRefreshToken(refreshToken)) }
    }
}
