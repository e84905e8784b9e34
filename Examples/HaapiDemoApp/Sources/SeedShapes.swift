import HaapiUI
import SwiftUI
import UIKit

// The Apple-only call shapes of the seeds' samples (seed 000's view controller with completion handlers,
// seed 001's app delegate, UIKit start and SwiftUI views), compiled by the Apple workflow as part of this app.
// The shapes that compile anywhere are in Tests/SeedSamplesTests, which also runs them.

enum SeedConstants {
    static let baseURL = URL(string: "http://localhost:8080")!
    static let tokenEndpointURL = URL(string: "http://localhost:8080/oauth/token")!
    static let authorizationEndpointURL = URL(string: "http://localhost:8080/oauth/authorize")!
    static let clientId = "haapi-demo"
    static let appRedirectURIString = "app://haapi"
}

/// Seed 001's app delegate: the UI kit's configuration and application, and the log tags.
final class SeedAppDelegate: NSObject, UIApplicationDelegate {
    var haapiUIKitConfiguration = HaapiUIKitConfigurationBuilder(
        clientId: SeedConstants.clientId,
        baseUrl: SeedConstants.baseURL,
        tokenEndpointUrl: SeedConstants.tokenEndpointURL,
        authorizationEndpointUrl: SeedConstants.authorizationEndpointURL,
        appRedirect: SeedConstants.appRedirectURIString
    )
    .build()
    var haapiUIKitApplication: HaapiUIKitApplication!

    func application(
        _ application: UIApplication,
        didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        haapiUIKitApplication = HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: haapiUIKitConfiguration).build()
        HaapiLogger.followUpTags = DriverFollowUpTag.allCases + SdkFollowUpTag.allCases + UIKitFollowUpTag.allCases
        return true
    }
}

extension UIApplication {
    /// The seed reaches the application through the delegate; without one there is none (no crash).
    var seedHaapiUIKitApplication: HaapiUIKitApplication? {
        (delegate as? SeedAppDelegate)?.haapiUIKitApplication
    }
}

/// Seed 001's UIKit start, from a presented view controller that receives the result.
final class SeedStartViewController: UIViewController, HaapiFlowResult {
    private(set) var outcome: String?

    func startFlow() {
        guard let application = UIApplication.shared.seedHaapiUIKitApplication else { return }
        do {
            try HaapiFlow.start(
                from: self,
                haapiUIKitApplication: application,
                haapiDeepLinkManageable: HaapiDeepLinkManager.shared)
        } catch {
            outcome = "not started: \(error.localizedDescription)"
        }
    }

    func didReceiveOAuthTokenModel(_ oAuthTokenModel: OAuthTokenModel) { outcome = "signed in" }
    func didReceiveError(_ error: Error) { outcome = error.localizedDescription }
}

/// Seed 000's view controller: the SDK's managers with completion handlers that call the controller.
final class SeedFlowViewController: UIViewController {
    var haapiManager: HaapiManager?
    private(set) var lastResult: String?

    override func viewDidLoad() {
        super.viewDidLoad()
        let configuration = HaapiConfiguration(
            name: "seed-shapes",
            clientId: SeedConstants.clientId,
            baseURL: SeedConstants.baseURL,
            tokenEndpointURL: SeedConstants.tokenEndpointURL,
            authorizationEndpointURL: SeedConstants.authorizationEndpointURL,
            appRedirect: SeedConstants.appRedirectURIString,
            applicationBundle: Bundle.main)
        let haapiAccessor: HaapiAccessor = HaapiAccessorBuilder(haapiConfiguration: configuration).build()
        haapiManager = haapiAccessor.haapiManager
        haapiManager?.start { [weak self] haapiResult in
            self?.handleHaapiResult(haapiResult)
        }
    }

    private func handleHaapiResult(_ haapiResult: HaapiResult) {
        switch haapiResult {
        case .representation(let representation): lastResult = "\(type(of: representation))"
        case .problem(let problem): lastResult = "\(problem.type)"
        case .error(let error): lastResult = error.localizedDescription
        }
    }
}

/// Seed 001's SwiftUI view: it starts the flow in a sheet, or pushes it in a navigation stack (iOS 16+).
struct SeedContentView: View, HaapiFlowResult {
    let haapiApplication: HaapiUIKitApplication
    @State private var showingHaapiVC = false
    @State private var isShowingStackVC = false

    var body: some View {
        VStack {
            Button {
                showingHaapiVC = true
            } label: {
                Text("Start Haapi flow")
            }
            if #available(iOS 16.0, *) {
                NavigationStack {
                    NavigationLink("Start Haapi Stack", value: SeedNavigation.haapiVC)
                        .navigationDestination(for: SeedNavigation.self) { _ in
                            HaapiFlow.start(
                                self, haapiUIKitApplication: haapiApplication,
                                haapiDeepLinkManageable: HaapiDeepLinkManager.shared)
                        }
                }
            }
        }
        .sheet(isPresented: $showingHaapiVC) {
            HaapiFlow.start(
                self,
                haapiUIKitApplication: haapiApplication,
                haapiDeepLinkManageable: HaapiDeepLinkManager.shared)
        }
    }

    func didReceiveOAuthTokenModel(_ oAuthTokenModel: HaapiUI.OAuthTokenModel) {}
    func didReceiveError(_ error: Error) {}
}

enum SeedNavigation: Hashable {
    case haapiVC
}
