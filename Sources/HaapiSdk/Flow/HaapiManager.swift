import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// Runs one HAAPI authorization flow: `start()`, then `submitForm` / `followLink` until an
/// `OAuthAuthorizationResponseStep` carries the code. Every call returns a `HaapiResult`; none throws.
public final class HaapiManager: Sendable {
    /// The client this manager runs flows as (a dynamic client after the DCR fallback).
    public let configuration: any HaapiConfigurable
    /// The manager of the HAAPI access token this flow's requests carry.
    public var tokenManager: HaapiTokenManager { deferred?.resolved?.manager?.tokenManager ?? ownTokenManager }
    private let ownTokenManager: HaapiTokenManager
    private let client: HaapiClient
    /// Set for the managers of `HaapiAccessorBuilder.build()`: every call goes to the manager it decides on.
    private let deferred: DeferredAccess?
    /// Redirection steps followed in a row before the manager assumes a loop.
    static let maxAutoRedirects = 10
    /// The PKCE verifier of the authorization request in progress (nil when the app sent its own challenge).
    /// The PKCE verifier of the authorization request in progress; one flow at a time per manager. A lock, not
    /// an actor: set and taken inside one async call, never across a suspension.
    private let pendingVerifier = LockedValue<String?>(nil)
    /// Where the verifiers of received codes go: the configuration's shared store (`OAuthTokenManager` of the
    /// same configuration takes them), or one of this manager's own for other configuration types.
    private var codeVerifiers: CodeVerifierStore {
        (configuration as? HaapiConfiguration)?.codeVerifiers ?? ownCodeVerifiers
    }
    private let ownCodeVerifiers = CodeVerifierStore()

    /// The key that signs this flow's proofs; pass it to `OAuthTokenManager.fetchAccessToken(with:dpop:)`.
    public var dpop: Dpop { tokenManager.dpop }

    /// The manager the calls go to: this one, or the one a deferred build decided on.
    private func target() async -> Result<HaapiManager, HaapiError> {
        guard let deferred else { return .success(self) }
        switch await deferred.resolve() {
        case .success(let resolved):
            guard let manager = resolved.manager else {
                return .failure(
                    .illegalState(message: "the accessor was built with the .oauth option: it has no HaapiManager"))
            }
            return .success(manager)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// A manager that obtains its HAAPI token with attestation (or, with attestation off, with the client's
    /// credentials). Apps that need the DCR fallback use `HaapiAccessorBuilder` instead.
    ///
    /// - Throws: a `HaapiError` (`.invalidConfiguration`, `.dpopKeyCreationFailure`,
    ///   `.haapiTokenManagerAlreadyExists`). Declared untyped, as in the seed, so that its
    ///   `catch let error as HaapiError { … } catch { … }` compiles without warnings.
    public convenience init(haapiConfiguration: any HaapiConfigurable) throws {
        try self.init(checked: haapiConfiguration)
    }

    /// The typed form of `init(haapiConfiguration:)`.
    convenience init(checked haapiConfiguration: any HaapiConfigurable) throws(HaapiError) {
        let concrete = haapiConfiguration as? HaapiConfiguration
        try self.init(
            configuration: haapiConfiguration, dpopKeyStorage: concrete?.dpopKeyStorage, dpopKey: concrete?.dpopKey)
    }

    init(
        configuration: any HaapiConfigurable, dpopKeyStorage: (any Storage)?, dpopKey: (any SigningKey)?
    ) throws(HaapiError) {
        let attestation = configuration.attestationConfiguration
        if !attestation.useAttestation, !configuration.clientAuthenticationMethod.hasCredentials {
            throw .invalidConfiguration(
                reason: "with useAttestation false the client needs a ClientAuthenticationMethod other than None")
        }
        let keyType = configuration.tokenBoundConfiguration.keyPairType
        let key: any SigningKey
        if let dpopKey {
            key = dpopKey
        } else if let dpopKeyStorage {
            key = try DeviceKeyStore(storage: dpopKeyStorage, keyType: keyType).loadOrCreate(
                name: configuration.name + "." + configuration.clientId)
        } else {
            key = try DeviceKeyStore.ephemeralKey(keyType)
        }
        var builder = HaapiTokenManagerBuilder(
            tokenEndpoint: configuration.tokenEndpointURL, clientId: configuration.clientId
        )
        .setName(configuration.name)
        .setTransport(configuration.transport)
        .setNonceStore(configuration.dpopNonceStore ?? DPoPNonceStore())
        .setHaapiTokenMinTTL(configuration.minTokenTTL)
        .setDPoPKey(key)
        .setClientAuthenticationMethod(configuration.clientAuthenticationMethod)
        .setAttestationMaxRetryCount(attestation.attestationMaxRetries)
        if attestation.useAttestation {
            builder = builder.setAttester(configuration.attester)
        } else {
            builder = builder.disableDeviceCheckAttestation()
        }
        self.configuration = configuration
        ownTokenManager = try builder.build()
        client = ownTokenManager.createClient(
            headersProvider: configuration.httpHeadersProvider,
            allowedURLs: [configuration.baseURL, configuration.authorizationEndpointURL])
        deferred = nil
    }

    /// A manager whose calls go to the one `access` decides on. Until then its own token manager is a
    /// stand-in outside the name registry, with the configured key or a fresh software one; it sends nothing.
    init(deferringTo access: DeferredAccess, configuration: HaapiConfiguration) {
        self.configuration = configuration
        ownTokenManager = HaapiTokenManager.standIn(
            name: configuration.name, tokenEndpoint: configuration.tokenEndpointURL,
            clientId: configuration.clientId, key: configuration.dpopKey ?? SoftwareP256SigningKey(),
            transport: configuration.transport)
        client = ownTokenManager.createClient(
            headersProvider: configuration.httpHeadersProvider,
            allowedURLs: [configuration.baseURL, configuration.authorizationEndpointURL])
        deferred = access
    }

    /// Sends the authorization request: `client_id`, `response_type=code`, `redirect_uri`, and the
    /// scopes, acr values and extra parameters of `parameters` (or of the configuration's provider).
    ///
    /// Unless `parameters` carry the app's own `codeChallenge`, the request carries a fresh PKCE challenge
    /// (S256); the verifier goes with the code to `OAuthTokenManager.fetchAccessToken(with:dpop:)` by itself,
    /// or is read with `codeVerifier(for:)`.
    public func start(parameters: OAuthAuthorizationParameters? = nil) async -> HaapiResult {
        switch await target() {
        case .failure(let error): return .error(error)
        case .success(let manager) where manager !== self: return await manager.start(parameters: parameters)
        case .success: break
        }
        var chosen = parameters ?? configuration.authorizationParametersProvider?() ?? OAuthAuthorizationParameters()
        if chosen.codeChallenge == nil {
            let pkce = PKCE()
            chosen = chosen.with(codeChallenge: pkce.codeChallenge)
            pendingVerifier.set(pkce.codeVerifier)
        } else {
            pendingVerifier.set(nil)
        }
        return await authorize(
            chosen.queryItems(clientId: configuration.clientId, redirectURI: configuration.appRedirect))
    }

    /// An authorization request with exactly `items` as its query: no PKCE or redirect URI of the manager's
    /// own. For `haapi check`, which sends what a well-behaved client would not (a `plain` challenge, none, an
    /// unregistered redirect URI) to see that the server refuses it. Apps use `start(parameters:)`.
    @_spi(Tooling) public func startExactly(_ items: [(name: String, value: String)]) async -> HaapiResult {
        switch await target() {
        case .failure(let error): return .error(error)
        case .success(let manager) where manager !== self: return await manager.startExactly(items)
        case .success: break
        }
        pendingVerifier.set(nil)
        return await authorize(items)
    }

    /// Forgets the flow's `Session-Id`, so the next request goes without it. For `haapi check`, which sees
    /// whether the server keeps a flow apart from its session header; apps never need it.
    @_spi(Tooling) public func forgetSession() async {
        switch await target() {
        case .success(let manager) where manager !== self: await manager.forgetSession()
        default: await client.resetSession()
        }
    }

    private func authorize(_ items: [(name: String, value: String)]) async -> HaapiResult {
        guard var components = URLComponents(url: configuration.authorizationEndpointURL, resolvingAgainstBaseURL: true)
        else {
            return .error(HaapiError.invalidConfiguration(reason: "bad authorization endpoint"))
        }
        let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
        components.percentEncodedQuery = existing + FormURLEncoding.encode(items)
        guard let url = components.url else {
            return .error(HaapiError.invalidConfiguration(reason: "bad authorization endpoint"))
        }
        await client.resetSession()
        HaapiLogger.info(SdkFollowUpTag.flow, "starting a HAAPI flow for client \(configuration.clientId)")
        return await send(HaapiRequest(method: "GET", url: url, headers: [:]))
    }

    /// Submits a form; `parameters` override the fields' values (hidden fields keep the server's).
    public func submitForm(_ form: FormActionModel, parameters: [String: any Sendable] = [:]) async -> HaapiResult {
        switch await target() {
        case .failure(let error): return .error(error)
        case .success(let manager) where manager !== self: return await manager.submitForm(form, parameters: parameters)
        case .success: break
        }
        let request: HaapiRequest
        do {
            request = try HaapiRequestBuilder.request(
                submitting: form, parameters: parameters, baseURL: configuration.baseURL)
        } catch {
            return .error(HaapiError.illegalState(message: "the form cannot be submitted: \(error)"))
        }
        return await send(request)
    }

    /// Follows a link of the current step (a GET with the HAAPI token and a proof); refused when it leaves the
    /// configured server.
    public func followLink(_ link: Link) async -> HaapiResult {
        switch await target() {
        case .failure(let error): return .error(error)
        case .success(let manager) where manager !== self: return await manager.followLink(link)
        case .success: break
        }
        do {
            return await send(try HaapiRequestBuilder.request(following: link, baseURL: configuration.baseURL))
        } catch {
            return .error(HaapiError.illegalState(message: "the link cannot be followed: \(error)"))
        }
    }

    /// The PKCE verifier of a code this manager's flow received, for apps that redeem codes themselves
    /// (an unbound configuration passes no `Dpop` to the token manager). Reading it removes it.
    public func codeVerifier(for code: String) -> String? {
        codeVerifiers.take(for: code)
    }

    /// Ends the flow and the token manager; later calls return `haapiTokenManagerIsClosed`.
    public func close() async {
        // A deferred manager's own token manager is a stand-in that holds no name: only the decided one closes.
        if deferred != nil {
            await deferred?.resolved?.manager?.close()
        } else {
            await ownTokenManager.close()
        }
    }

    private func send(_ first: HaapiRequest) async -> HaapiResult {
        var request = first
        for _ in 0...Self.maxAutoRedirects {
            let response: HaapiClientResponse
            HaapiLogger.debug(SdkFollowUpTag.http, "\(request.method) \(sensitive: request.url.absoluteString)")
            do throws(HaapiError) {
                response = try await client.send(request)
            } catch {
                HaapiLogger.warning(
                    SdkFollowUpTag.http, "\(request.method) \(sensitive: request.url.absoluteString) failed: \(error)")
                return .error(error)
            }
            switch response.response {
            case .problem(let problem):
                return .problem(problem)
            case .representation(let step):
                if let response = step as? OAuthAuthorizationResponseStep,
                    let code = response.oauthAuthorizationResponseProperties.code,
                    let verifier = pendingVerifier.withLock({ verifier in
                        defer { verifier = nil }
                        return verifier
                    })
                {
                    codeVerifiers.record(verifier, for: code)
                }
                guard configuration.isAutoRedirect, let redirect = step as? RedirectionStep else {
                    return .representation(step)
                }
                do {
                    request = try HaapiRequestBuilder.request(
                        submitting: redirect.action.model, baseURL: configuration.baseURL)
                } catch {
                    return .error(
                        HaapiError.communication(
                            message: "the redirection step cannot be followed: \(error)", cause: error))
                }
                HaapiLogger.debug(SdkFollowUpTag.flow, "following a redirection step")
            }
        }
        return .error(
            HaapiError.communication(
                message: "more than \(Self.maxAutoRedirects) redirection steps in a row", cause: nil))
    }
}

// The completion-handler forms: the request runs off the main actor, the handler on it.
extension HaapiManager {
    /// The completion-handler form of `start(parameters:)`; the handler runs on the main actor.
    public func start(
        parameters: OAuthAuthorizationParameters? = nil, completionHandler: @escaping HaapiCompletionHandler
    ) {
        Task { await completionHandler(await start(parameters: parameters)) }
    }

    /// The seed's shape: values of any type (strings, numbers, booleans) as an app collects them from its
    /// fields. They are turned into form values before the call returns; the async form takes `Sendable`s.
    public func submitForm(
        _ form: FormActionModel, parameters: [String: Any] = [:], completionHandler: @escaping HaapiCompletionHandler
    ) {
        let values = FormValues.sendable(parameters)
        Task { await completionHandler(await submitForm(form, parameters: values)) }
    }

    /// The completion-handler form of `followLink(_:)`; the handler runs on the main actor.
    public func followLink(_ link: Link, completionHandler: @escaping HaapiCompletionHandler) {
        Task { await completionHandler(await followLink(link)) }
    }
}
