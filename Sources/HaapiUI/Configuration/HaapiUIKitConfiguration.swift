import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys

/// How the login screens appear: over the app (`modal`) or pushed on its navigation stack (`stack`).
public enum PresentationMode: Sendable {
    /// Presented over the app.
    case modal
    /// Pushed on the app's navigation stack.
    case stack
}
/// How a choice of authenticators is shown: one list, or a tab per authenticator.
public enum AuthenticatorSelectionPresentation: Sendable {
    /// One list of authenticators.
    case list
    /// A tab per authenticator, the first one's screen shown at once.
    case tabs
}

/// How the UI kit runs a flow: the client and server (passed on to the SDK) and the UI behaviour.
public struct HaapiUIKitConfiguration: Sendable {
    /// The OAuth client the app is.
    public let clientId: String
    /// Resolves relative links in representations.
    public let baseUrl: URL
    /// The token endpoint.
    public let tokenEndpointUrl: URL
    /// Where flows start.
    public let authorizationEndpointUrl: URL
    /// The revocation endpoint, for signing out.
    public let revocationEndpointURL: URL?
    /// The redirect URI registered for the client.
    public let appRedirect: String
    /// The scopes each flow asks for.
    public let scopes: [String]
    /// The ACR values each flow asks for.
    public let acrValues: [String]
    /// Seconds between automatic polls; 0 or less turns automatic polling off. Default 3.
    public let autoPollingDuration: TimeInterval
    /// Automatic polling stops after this many seconds and reports a timeout. Default 300.
    public let pollingTimeout: TimeInterval
    /// Whether a failed flow shows an alert before its error reaches `HaapiFlowResult`.
    public let shouldAutoHandleFlowErrorFeedback: Bool
    /// How the login screens appear.
    public let presentationMode: PresentationMode
    /// How a choice of authenticators is shown.
    public let authenticationSelectionPresentation: AuthenticatorSelectionPresentation
    /// Whether closing the screens mid-flow asks the user first.
    public let shouldConfirmFlowInterruption: Bool
    /// Whether an external-browser step opens the default browser instead of an in-app browser session.
    public let useDefaultExternalBrowser: Bool
    /// Whether and how the client attests.
    public let attestationConfiguration: AttestationConfiguration
    /// The attester; `nil` uses the platform's (App Attest on iOS).
    public let attester: (any Attester)?
    /// The client's own credentials (for the DCR fallback, or a HAAPI token without attestation).
    public let clientAuthenticationMethod: any ClientAuthenticationMethod
    /// The dynamic-client fallback for devices that cannot attest, when set.
    public let dcrConfiguration: DCRConfiguration?
    /// Whether the tokens are bound to the DPoP key, and where the key lives.
    public let tokenBoundConfiguration: any TokenBoundConfiguration
    /// How requests reach the server; `nil` uses the platform's default.
    public let transport: (any HTTPTransport)?
    /// The deadline of every request, in seconds; `nil` keeps the transport's (30 s for the SDK's).
    public let requestTimeout: TimeInterval?
    /// Runs the WebAuthn client operations (passkey steps); without one they take the server's fallback.
    public let passkeyAuthenticator: (any WebAuthnAuthenticator)?
    /// The origin the authenticator acts for; by default the origin of `baseUrl`.
    public let passkeyOrigin: String?
    /// The words the kit shows; by default in the device's language.
    public let strings: HaapiUIStrings
    /// Opens other apps (BankID, Encap) for their client operations. On iOS by default `UIApplication`;
    /// elsewhere none, and the renderer shows the link instead.
    public let externalAppOpener: (any ExternalAppOpener)?
    /// Shows external-browser steps. On iOS by default an `ASWebAuthenticationSession`, or the system
    /// browser with `useDefaultExternalBrowser`; elsewhere none, and the renderer shows the link instead.
    public let externalBrowserLauncher: (any ExternalBrowserLauncher)?

    /// The SDK configuration this UI configuration describes; every flow shares the application's DPoP key.
    func haapiConfiguration(name: String, dpopKey: any SigningKey) -> HaapiConfiguration {
        let scopes = scopes
        let acrValues = acrValues
        return HaapiConfiguration(
            name: name, clientId: clientId, baseURL: baseUrl, tokenEndpointURL: tokenEndpointUrl,
            authorizationEndpointURL: authorizationEndpointUrl,
            appRedirect: appRedirect,
            authorizationParametersProvider: { OAuthAuthorizationParameters(scopes: scopes, acrValues: acrValues) },
            transport: transport, revocationEndpointURL: revocationEndpointURL,
            attestationConfiguration: attestationConfiguration,
            attester: attester, tokenBoundConfiguration: tokenBoundConfiguration,
            clientAuthenticationMethod: clientAuthenticationMethod,
            dpopKeyStorage: nil, dpopKey: dpopKey, requestTimeout: requestTimeout)
    }
}

/// Builds a `HaapiUIKitConfiguration` with the seed's defaults.
public struct HaapiUIKitConfigurationBuilder: ValueBuilder {
    private let clientId: String
    private let baseUrl: URL
    private let tokenEndpointUrl: URL
    private let authorizationEndpointUrl: URL
    private let appRedirect: String
    private var revocationEndpointURL: URL?
    private var scopes: [String] = []
    private var acrValues: [String] = []
    private var autoPollingDuration: TimeInterval = 3
    private var pollingTimeout: TimeInterval = 300
    private var shouldAutoHandleFlowErrorFeedback = true
    private var presentationMode = PresentationMode.modal
    private var authenticationSelectionPresentation = AuthenticatorSelectionPresentation.list
    private var shouldConfirmFlowInterruption = true
    private var useDefaultExternalBrowser = false
    private var attestationConfiguration = AttestationConfiguration()
    private var attester: (any Attester)?
    private var clientAuthenticationMethod: any ClientAuthenticationMethod = ClientAuthenticationMethodNone()
    private var dcrConfiguration: DCRConfiguration?
    private var tokenBoundConfiguration: any TokenBoundConfiguration = BoundedTokenConfiguration()
    private var transport: (any HTTPTransport)?
    private var requestTimeout: TimeInterval?
    private var passkeyAuthenticator: (any WebAuthnAuthenticator)?
    private var passkeyOrigin: String?
    private var strings = HaapiUIStrings()
    private var externalAppOpener: (any ExternalAppOpener)? = defaultExternalAppOpener()
    /// `nil`: the platform's, as `useDefaultExternalBrowser` chooses when the configuration is built.
    private var externalBrowserLauncher: (any ExternalBrowserLauncher)?

    /// A builder with the seed's required values; every other setting has the seed's default.
    public init(
        clientId: String, baseUrl: URL, tokenEndpointUrl: URL, authorizationEndpointUrl: URL, appRedirect: String
    ) {
        self.clientId = clientId
        self.baseUrl = baseUrl
        self.tokenEndpointUrl = tokenEndpointUrl
        self.authorizationEndpointUrl = authorizationEndpointUrl
        self.appRedirect = appRedirect
    }

    /// A copy with the revocation endpoint.
    public func setRevocationEndpointURL(_ url: URL) -> Self {
        with { $0.revocationEndpointURL = url }
    }
    /// A copy that asks for `scopes`.
    public func setScopes(_ scopes: [String]) -> Self {
        with { $0.scopes = scopes }
    }
    /// A copy that asks for the ACR values.
    public func setAcrValues(_ values: [String]) -> Self {
        with { $0.acrValues = values }
    }
    /// A copy that polls every `seconds` when the server gives no interval (3 by default).
    public func setAutoPollingDuration(_ seconds: TimeInterval) -> Self {
        with { $0.autoPollingDuration = seconds }
    }
    /// A copy that gives up polling after `seconds` (300 by default).
    public func setPollingTimeout(_ seconds: TimeInterval) -> Self {
        with { $0.pollingTimeout = seconds }
    }
    /// A copy that shows, or does not show, an alert when the flow fails.
    public func setShouldAutoHandleFlowErrorFeedback(_ value: Bool) -> Self {
        with { $0.shouldAutoHandleFlowErrorFeedback = value }
    }
    /// A copy with the presentation mode.
    public func setPresentationMode(_ mode: PresentationMode) -> Self {
        with { $0.presentationMode = mode }
    }
    /// A copy that shows a choice of authenticators as a list or as tabs.
    public func setAuthenticationSelectionPresentation(
        _ value: AuthenticatorSelectionPresentation
    ) -> Self {
        with { $0.authenticationSelectionPresentation = value }
    }
    /// A copy that asks, or does not ask, before closing mid-flow.
    public func setShouldConfirmFlowInterruption(_ value: Bool) -> Self {
        with { $0.shouldConfirmFlowInterruption = value }
    }
    /// A copy that opens external-browser steps in the default browser, or in an in-app session.
    public func setUseDefaultExternalBrowser(_ value: Bool) -> Self {
        with { $0.useDefaultExternalBrowser = value }
    }
    /// A copy with the attestation settings.
    public func setAttestationConfiguration(_ value: AttestationConfiguration) -> Self {
        with { $0.attestationConfiguration = value }
    }
    /// A copy that attests with `value`.
    public func setAttester(_ value: any Attester) -> Self {
        with { $0.attester = value }
    }
    /// A copy with the client's own credentials.
    public func setClientAuthenticationMethod(_ value: any ClientAuthenticationMethod) -> Self {
        with { $0.clientAuthenticationMethod = value }
    }
    /// A copy with the dynamic-client fallback for devices that cannot attest.
    public func setDCRConfiguration(_ value: DCRConfiguration) -> Self {
        with { $0.dcrConfiguration = value }
    }
    /// A copy with the token binding.
    public func setTokenBoundConfiguration(_ value: any TokenBoundConfiguration) -> Self {
        with { $0.tokenBoundConfiguration = value }
    }
    /// A copy that sends through `value`.
    public func setTransport(_ value: any HTTPTransport) -> Self {
        with { $0.transport = value }
    }

    /// The deadline of every request the flow sends, in seconds (the transport's own, 30 s, when not set): a
    /// stalled server holds a screen no longer than this per request.
    public func setRequestTimeout(_ seconds: TimeInterval) -> Self {
        with { $0.requestTimeout = seconds }
    }
    /// A copy that runs passkey steps with `value`, acting for `origin` (by default the server's).
    public func setPasskeyAuthenticator(
        _ value: any WebAuthnAuthenticator, origin: String? = nil
    ) -> Self {
        with {
            $0.passkeyAuthenticator = value
            $0.passkeyOrigin = origin
        }
    }

    /// The language of the kit's own words (one of `HaapiUIStrings.languages`, else English) and the app's
    /// replacements by key (`hui_back`, …).
    public func setLocalization(locale: Locale, overrides: [String: String] = [:]) -> Self {
        with { $0.strings = HaapiUIStrings(locale: locale, overrides: overrides) }
    }

    /// How BankID and Encap client operations open their app; `nil` leaves it to the renderer (a link).
    public func setExternalAppOpener(_ opener: (any ExternalAppOpener)?) -> Self {
        with { $0.externalAppOpener = opener }
    }

    /// How external-browser steps are shown, in place of the platform's (`useDefaultExternalBrowser` then
    /// has no effect).
    public func setExternalBrowserLauncher(_ launcher: any ExternalBrowserLauncher) -> Self {
        with { $0.externalBrowserLauncher = launcher }
    }

    /// The configuration.
    public func build() -> HaapiUIKitConfiguration {
        HaapiUIKitConfiguration(
            clientId: clientId, baseUrl: baseUrl, tokenEndpointUrl: tokenEndpointUrl,
            authorizationEndpointUrl: authorizationEndpointUrl,
            revocationEndpointURL: revocationEndpointURL, appRedirect: appRedirect, scopes: scopes,
            acrValues: acrValues,
            autoPollingDuration: autoPollingDuration, pollingTimeout: pollingTimeout,
            shouldAutoHandleFlowErrorFeedback: shouldAutoHandleFlowErrorFeedback, presentationMode: presentationMode,
            authenticationSelectionPresentation: authenticationSelectionPresentation,
            shouldConfirmFlowInterruption: shouldConfirmFlowInterruption,
            useDefaultExternalBrowser: useDefaultExternalBrowser, attestationConfiguration: attestationConfiguration,
            attester: attester,
            clientAuthenticationMethod: clientAuthenticationMethod, dcrConfiguration: dcrConfiguration,
            tokenBoundConfiguration: tokenBoundConfiguration, transport: transport, requestTimeout: requestTimeout,
            passkeyAuthenticator: passkeyAuthenticator,
            passkeyOrigin: passkeyOrigin, strings: strings, externalAppOpener: externalAppOpener,
            externalBrowserLauncher: externalBrowserLauncher
                ?? defaultExternalBrowserLauncher(systemBrowser: useDefaultExternalBrowser))
    }
}
