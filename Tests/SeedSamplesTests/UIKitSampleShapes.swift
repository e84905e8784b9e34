// The call shapes of seed 001's samples (the UI kit) that are not Apple-only: the configuration and
// application builders as an app delegate holds them, the view model's publishers, the token refresh
// helper and the log tags. Apple-only shapes (HaapiFlow.start, the SwiftUI view) are in
// Examples/HaapiDemoApp, which the Apple workflow compiles.
import Foundation
import HaapiUI

enum SampleConstants {
    static let baseURL = URL(string: "https://localhost:8443")!
    static let tokenEndpointURL = URL(string: "https://localhost:8443/oauth/token")!
    static let authorizationEndpointURL = URL(string: "https://localhost:8443/oauth/authorize")!
    static let clientId = "haapi-demo"
    static let appRedirectURIString = "app://haapi"
}

@MainActor
final class SampleAppDelegate {
    var haapiUIKitConfiguration = HaapiUIKitConfigurationBuilder(
        clientId: SampleConstants.clientId,
        baseUrl: SampleConstants.baseURL,
        tokenEndpointUrl: SampleConstants.tokenEndpointURL,
        authorizationEndpointUrl: SampleConstants.authorizationEndpointURL,
        appRedirect: SampleConstants.appRedirectURIString
    )
    .build()
    var haapiUIKitApplication: HaapiUIKitApplication!

    func applicationDidFinishLaunching() -> Bool {
        haapiUIKitApplication = HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: haapiUIKitConfiguration).build()
        HaapiLogger.followUpTags = DriverFollowUpTag.allCases + SdkFollowUpTag.allCases + UIKitFollowUpTag.allCases
        return true
    }

    func themedApplication() -> HaapiUIKitApplication {
        HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: haapiUIKitConfiguration)
            .setThemingPlistFileName("MyCustom")
            .build()
    }

    func showLayoutLogs() {
        HaapiLogger.followUpTags = [UIKitFollowUpTag.theming, UIKitFollowUpTag.component, UIKitFollowUpTag.layout]
        HaapiLogger.isDebugEnabled = true
        HaapiLogger.followUpTags = UIKitFollowUpTag.allCases
    }
}

/// A screen that drives its own UI from the view model's publishers and keeps the tokens fresh.
@MainActor
final class SampleCustomFlowScreen: HaapiFlowResult, OAuthLifecycleResultListener {
    var cancellables = Set<AnyCancellable>()
    var events: [String] = []
    var oauthModel: OAuthModel?
    let haapiUIKitApplication: HaapiUIKitApplication

    init(haapiUIKitApplication: HaapiUIKitApplication) {
        self.haapiUIKitApplication = haapiUIKitApplication
    }

    func observe() -> HaapiFlowViewModel {
        let haapiFlowViewModel = HaapiFlowViewModel(haapiUIKitApplication: haapiUIKitApplication)
        haapiFlowViewModel.$isLoading
            .receive(on: DispatchQueue.main)
            .sink(receiveValue: { [weak self] isLoading in
                self?.events.append("loading \(isLoading)")
            })
            .store(in: &cancellables)
        haapiFlowViewModel.$uiModel
            .receive(on: DispatchQueue.main)
            .sink(receiveValue: { [weak self] result in
                self?.events.append("model \(result != nil)")
            })
            .store(in: &cancellables)
        haapiFlowViewModel.$error
            .receive(on: DispatchQueue.main)
            .sink(receiveValue: { [weak self] error in
                self?.events.append("error \(error != nil)")
            })
            .store(in: &cancellables)
        haapiFlowViewModel.$oAuthModel
            .receive(on: DispatchQueue.main)
            .sink(receiveValue: { [weak self] oAuthModel in
                self?.oauthModel = oAuthModel
            })
            .store(in: &cancellables)
        return haapiFlowViewModel
    }

    func refreshIfPossible() {
        if let refreshToken = (oauthModel as? OAuthTokenModel)?.refreshToken, !refreshToken.isEmpty {
            OAuthLifecycle.refreshToken(
                refreshToken: refreshToken,
                haapiUIKitApplication: haapiUIKitApplication,
                lifecycleResultListener: self)
        }
    }

    func didReceiveOAuthTokenModel(_ oAuthTokenModel: HaapiUI.OAuthTokenModel) { events.append("tokens") }
    func didReceiveError(_ error: Error) { events.append("failed \(error)") }
    func refreshTokenSucceeded(_ oAuthTokenModel: OAuthTokenModel) { events.append("refreshed") }
    func refreshTokenFailed(_ error: Error) { events.append("refresh failed") }
}
