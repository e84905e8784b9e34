import Foundation
@_spi(Tooling) import HaapiDriver

/// What the UI kit needs for every flow of one app: the configuration, the theme, and the device's DPoP
/// key (shared by flows and by `OAuthLifecycle` refreshes of the tokens they produced).
public final class HaapiUIKitApplication: Sendable {
    /// The app's client and flow settings.
    public let haapiUIKitConfiguration: HaapiUIKitConfiguration
    /// The styles the screens use: the built-in theme with the app's overrides.
    public let theme: ThemeRegistry
    /// The device's DPoP key, or why it could not be loaded or made (reported by the first flow or refresh).
    let key: Result<any SigningKey, HaapiError>

    /// The device's DPoP key; nil when it could not be loaded or made, which flows and refreshes report.
    public var dpopKey: (any SigningKey)? { try? key.get() }

    init(configuration: HaapiUIKitConfiguration, theme: ThemeRegistry, key: Result<any SigningKey, HaapiError>) {
        haapiUIKitConfiguration = configuration
        self.theme = theme
        self.key = key
    }

    /// Managers for one flow: attestation first, the DCR fallback when configured.
    func accessor() async throws(HaapiError) -> any HaapiAccessor {
        let dpopKey = try key.get()
        let configuration = haapiUIKitConfiguration.haapiConfiguration(
            name: "haapi-ui-" + SecureRandom.token(byteCount: 6), dpopKey: dpopKey)
        var builder = HaapiAccessorBuilder(haapiConfiguration: configuration)
        if let dcr = haapiUIKitConfiguration.dcrConfiguration {
            builder = builder.setDCRConfiguration(configuration: dcr)
        }
        return try await builder.build()
    }

    func oauthTokenManager(dpopKey: any SigningKey) -> OAuthTokenManager {
        OAuthTokenManager(
            oauthTokenConfiguration: haapiUIKitConfiguration.haapiConfiguration(
                name: "haapi-ui-oauth", dpopKey: dpopKey))
    }
}

/// Builds a `HaapiUIKitApplication`: the configuration, the theme, and the DPoP key the flows use.
public struct HaapiUIKitApplicationBuilder: ValueBuilder {
    private let configuration: HaapiUIKitConfiguration
    private var themingPlistFileName: String?
    private var themingBundle: Bundle = .main
    private var themingPlistURL: URL?
    private var keyStorage: (any Storage)? = HaapiConfiguration.defaultDPoPKeyStorage()
    private var dpopKey: (any SigningKey)?

    /// A builder with the built-in theme and a DPoP key kept in the platform's storage (the Keychain on Apple
    /// platforms, a sealed file in the user's application-support folder elsewhere), so tokens bound to it
    /// are still usable after a relaunch. `setEphemeralDPoPKey()` keeps the key in memory instead.
    public init(haapiUIKitConfiguration: HaapiUIKitConfiguration) {
        configuration = haapiUIKitConfiguration
    }

    /// The app's theme overrides: `name`.plist in `bundle`.
    public func setThemingPlistFileName(_ name: String, bundle: Bundle = .main) -> Self {
        with {
            $0.themingPlistFileName = name
            $0.themingBundle = bundle
        }
    }

    /// Theme overrides from a file anywhere (Linux apps, tests).
    public func setThemingPlistURL(_ url: URL) -> Self {
        with { $0.themingPlistURL = url }
    }

    /// Uses a key the app already holds for DPoP.
    public func setDPoPKey(_ key: any SigningKey) -> Self {
        with { $0.dpopKey = key }
    }

    /// Keeps the DPoP key in `storage` so bound tokens can be refreshed after a restart.
    public func setDPoPKeyStorage(_ storage: any Storage) -> Self {
        with { $0.keyStorage = storage }
    }

    /// Makes a fresh DPoP key in memory for this application: tokens bound to it cannot be refreshed after the
    /// process ends (demos, kiosks, tests).
    public func setEphemeralDPoPKey() -> Self {
        with { $0.keyStorage = nil }
    }

    /// Never throws, as in the seed: a DPoP key that cannot be loaded or made (a stored key that no longer
    /// opens, no Secure Enclave) is reported by the first flow (`HaapiFlowResult.didReceiveError`) and
    /// refresh, as a `HaapiError`.
    public func build() -> HaapiUIKitApplication {
        var overrides: URL? = themingPlistURL
        if overrides == nil, let name = themingPlistFileName {
            overrides = themingBundle.url(forResource: name, withExtension: "plist")
            if overrides == nil {
                HaapiLogger.error(UIKitFollowUpTag.theming, "\(name).plist was not found; using the built-in theme")
            }
        }
        let theme = ThemeRegistry(overridesAt: overrides)
        #if canImport(SwiftUI) && canImport(UIKit)
        theme.prepareFonts(bundle: themingBundle)
        #endif
        let keyType = configuration.tokenBoundConfiguration.keyPairType
        let key: Result<any SigningKey, HaapiError>
        if let dpopKey {
            key = .success(dpopKey)
        } else if let keyStorage {
            let store = DeviceKeyStore(storage: keyStorage, keyType: keyType)
            let name = "haapi-ui." + configuration.clientId
            key = Result { () throws(HaapiError) in try store.loadOrCreate(name: name) }
        } else {
            key = Result { () throws(HaapiError) in try DeviceKeyStore.ephemeralKey(keyType) }
        }
        if case .failure(let error) = key {
            HaapiLogger.error(UIKitFollowUpTag.component, "no DPoP key: \(error.errorDescription)")
        }
        return HaapiUIKitApplication(configuration: configuration, theme: theme, key: key)
    }
}
