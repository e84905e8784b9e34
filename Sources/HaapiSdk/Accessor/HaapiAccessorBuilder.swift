import Foundation
@_spi(Tooling) import HaapiDriver

/// Gives access to the OAuth side.
public protocol OAuthAccessor: Sendable {
    /// Redeems the flow's code and refreshes and revokes the tokens.
    var oAuthTokenManager: OAuthTokenManager { get }
}

/// Gives access to HAAPI flows and the OAuth side, both using the same client.
public protocol HaapiAccessor: OAuthAccessor {
    /// Runs the authorization flow.
    var haapiManager: HaapiManager { get }
}

/// The seed's other name for `HaapiAccessor`.
public typealias HaapiManagerAccessor = HaapiAccessor

/// Which managers `HaapiAccessorBuilder` builds.
public enum HaapiAccessorOption: Sendable {
    /// A `HaapiManager` and an `OAuthTokenManager`.
    case all
    /// An `OAuthTokenManager` only (refreshing and revoking tokens from an earlier flow).
    case oauth
}

struct BuiltOAuthAccessor: OAuthAccessor {
    let oAuthTokenManager: OAuthTokenManager
}

struct BuiltHaapiAccessor: HaapiAccessor {
    let haapiManager: HaapiManager
    let oAuthTokenManager: OAuthTokenManager
}

/// Builds the managers for this device: attestation when it works, otherwise (when configured) a
/// dynamic client registered from a template, kept for later runs.
public struct HaapiAccessorBuilder: ValueBuilder {
    private let configuration: HaapiConfiguration
    private var option = HaapiAccessorOption.all
    private var dcrConfiguration: DCRConfiguration?

    /// A builder for the managers of `haapiConfiguration`; by default it builds both, with attestation and no fallback.
    public init(haapiConfiguration: HaapiConfiguration) {
        configuration = haapiConfiguration
    }

    /// A copy that builds both managers (`.all`) or only the `OAuthTokenManager` (`.oauth`).
    public func setHaapiAccessorOption(option: HaapiAccessorOption) -> Self {
        with { $0.option = option }
    }

    /// A copy that falls back to dynamic client registration when the device cannot attest.
    public func setDCRConfiguration(configuration: DCRConfiguration) -> Self {
        with { $0.dcrConfiguration = configuration }
    }

    /// Builds a `HaapiManager` and an `OAuthTokenManager` (option `.all`), having decided between attestation
    /// and the DCR fallback: errors surface here.
    public func build(shouldClearExistingDCRClient: Bool = false) async throws(HaapiError) -> any HaapiAccessor {
        guard option == .all else { throw .illegalState(message: "the option is .oauth; call buildOAuthAccessor()") }
        let (manager, client) = try await Self.resolve(
            configuration, dcrConfiguration, shouldClearExistingDCRClient: shouldClearExistingDCRClient,
            needsManager: true)
        guard let manager else { throw .illegalState(message: "no HaapiManager was built") }
        return BuiltHaapiAccessor(
            haapiManager: manager, oAuthTokenManager: OAuthTokenManager(oauthTokenConfiguration: client))
    }

    /// The seed's synchronous shape, for code outside an async context (`viewDidLoad`). It returns at once;
    /// the choice between attestation and the DCR fallback starts in the background and finishes before the
    /// managers' first request, and its errors come back from that request (`HaapiResult.error`,
    /// `TokenResponse.error`). With the `.oauth` option the accessor's `haapiManager` answers every call
    /// with `.illegalState`. Until the choice is made, `haapiManager.dpop` and `tokenManager` are those of
    /// the configured client; prefer the `async` form where you can.
    public func build() -> any HaapiAccessor {
        let configuration = configuration
        let dcrConfiguration = dcrConfiguration
        let needsManager = option == .all
        let access = DeferredAccess { () async throws(HaapiError) -> DeferredAccess.Resolved in
            let (manager, client) = try await Self.resolve(
                configuration, dcrConfiguration, shouldClearExistingDCRClient: false,
                needsManager: needsManager)
            return (manager, OAuthTokenManager(oauthTokenConfiguration: client))
        }
        return BuiltHaapiAccessor(
            haapiManager: HaapiManager(deferringTo: access, configuration: configuration),
            oAuthTokenManager: OAuthTokenManager(deferringTo: access, configuration: configuration))
    }

    /// Builds an `OAuthTokenManager` only, with the client a HAAPI flow would use.
    public func buildOAuthAccessor(
        shouldClearExistingDCRClient: Bool = false
    ) async throws(HaapiError) -> any OAuthAccessor {
        let (_, client) = try await Self.resolve(
            configuration, dcrConfiguration, shouldClearExistingDCRClient: shouldClearExistingDCRClient,
            needsManager: false)
        return BuiltOAuthAccessor(oAuthTokenManager: OAuthTokenManager(oauthTokenConfiguration: client))
    }

    private static func resolve(
        _ configuration: HaapiConfiguration, _ dcrConfiguration: DCRConfiguration?, shouldClearExistingDCRClient: Bool,
        needsManager: Bool
    ) async throws(HaapiError) -> (HaapiManager?, HaapiConfiguration) {
        if dcrConfiguration != nil, !configuration.clientAuthenticationMethod.hasCredentials {
            throw .invalidConfiguration(
                reason:
                    "the DCR fallback needs the main client's credentials (a ClientAuthenticationMethod other than None)"
            )
        }
        let registrar = dcrConfiguration.map {
            DynamicClientRegistrar(
                configuration: configuration, dcr: $0,
                exchange: TokenEndpointExchange(
                    transport: configuration.transport, nonces: configuration.dpopNonceStore ?? DPoPNonceStore()))
        }
        if shouldClearExistingDCRClient { try registrar?.clear() }
        // A device that already fell back keeps its dynamic client: attestation is not retried on every start.
        if let registrar, let stored = try registrar.stored() {
            HaapiLogger.info(SdkFollowUpTag.flow, "using the stored dynamic client")
            let access = try dynamicAccess(configuration, stored, needsManager: needsManager)
            guard let manager = access.0 else { return access }
            // A server that forgot the client (a reset dev server, a deleted registration) refuses its
            // credentials: register again once, instead of failing on every start.
            do throws(HaapiError) {
                _ = try await manager.tokenManager.getHaapiTokenAsync()
                return access
            } catch {
                guard case .serverError(let code, _, _) = error,
                    code == "invalid_client" || code == "unauthorized_client"
                else { throw error }
                await manager.close()
                HaapiLogger.warning(
                    SdkFollowUpTag.flow, "the stored dynamic client was refused (\(code)); registering a new one")
                try registrar.clear()
                return try dynamicAccess(configuration, try await registrar.register(), needsManager: needsManager)
            }
        }
        if configuration.attestationConfiguration.useAttestation {
            guard needsManager else { return (nil, configuration) }
            let manager = try HaapiManager(checked: configuration)
            do throws(HaapiError) {
                _ = try await manager.tokenManager.getHaapiTokenAsync()
                return (manager, configuration)
            } catch {
                await manager.close()
                guard let registrar, Self.allowsFallback(error) else { throw error }
                HaapiLogger.warning(
                    SdkFollowUpTag.flow, "attestation unavailable (\(error.error)); using the DCR fallback")
                return try dynamicAccess(configuration, try await registrar.register(), needsManager: needsManager)
            }
        }
        if let registrar {
            return try dynamicAccess(configuration, try await registrar.register(), needsManager: needsManager)
        }
        return (needsManager ? try HaapiManager(checked: configuration) : nil, configuration)
    }

    private static func dynamicAccess(
        _ configuration: HaapiConfiguration, _ client: DynamicClient, needsManager: Bool
    ) throws(HaapiError)
        -> (HaapiManager?, HaapiConfiguration)
    {
        let dynamic = configuration.with(
            clientId: client.clientId,
            clientAuthenticationMethod: ClientAuthenticationMethodSecret(client.clientSecret),
            useAttestation: false)
        return (needsManager ? try HaapiManager(checked: dynamic) : nil, dynamic)
    }

    /// Errors that mean "this device cannot attest here", as opposed to a network failure.
    static func allowsFallback(_ error: HaapiError) -> Bool {
        switch error {
        case .attestationNotSupported, .attestationRefusedByServer, .attestationFailure, .attestationKeyGenFailure: true
        default: false
        }
    }
}
