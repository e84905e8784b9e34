#if canImport(SwiftUI) && canImport(UIKit)
import SwiftUI
import UIKit

/// Starts the prebuilt flow screens: from UIKit (presented from a view controller) or from SwiftUI (a view
/// to put in a sheet or a navigation destination).
@MainActor
public enum HaapiFlow {
    /// Presents the flow from `parent` as the configuration's `presentationMode` says. The parent must
    /// implement `HaapiFlowResult`.
    public static func start(
        from parent: UIViewController, haapiUIKitApplication: HaapiUIKitApplication,
        haapiDeepLinkManageable: any HaapiDeepLinkManageable
    ) throws {
        guard let result = parent as? HaapiFlowResult else {
            throw HaapiError.illegalState(message: "the presenting view controller must implement HaapiFlowResult")
        }
        let controller = HaapiFlowViewController(
            haapiUIKitApplication: haapiUIKitApplication, flowResult: result,
            deepLinks: haapiDeepLinkManageable)
        switch haapiUIKitApplication.haapiUIKitConfiguration.presentationMode {
        case .modal:
            parent.present(UINavigationController(rootViewController: controller), animated: true)
        case .stack:
            guard let navigation = parent.navigationController else {
                parent.present(UINavigationController(rootViewController: controller), animated: true)
                return
            }
            // The back button shows the kit's `hui_back` (translatable in the app's Localizable.strings).
            parent.navigationItem.backButtonTitle = haapiUIKitApplication.haapiUIKitConfiguration.strings[.back]
            navigation.pushViewController(controller, animated: true)
        }
    }

    /// The SwiftUI form: a view that runs the flow and reports to `flowResult`.
    public static func start(
        _ flowResult: HaapiFlowResult, haapiUIKitApplication: HaapiUIKitApplication,
        haapiDeepLinkManageable: any HaapiDeepLinkManageable
    ) -> HaapiFlowViewControllerRepresentable {
        HaapiFlowViewControllerRepresentable(
            haapiUIKitApplication: haapiUIKitApplication, flowResult: flowResult,
            deepLinks: haapiDeepLinkManageable)
    }
}

/// The flow's screens in one view controller (the SwiftUI views hosted), for apps that manage presentation themselves.
@MainActor
public final class HaapiFlowViewController: UIHostingController<HaapiFlowView> {
    private let viewModel: HaapiFlowViewModel

    public init(
        haapiUIKitApplication: HaapiUIKitApplication, flowResult: HaapiFlowResult,
        deepLinks: any HaapiDeepLinkManageable
    ) {
        let forwarder = ClosingResultForwarder(flowResult)
        viewModel = HaapiFlowViewModel(haapiUIKitApplication: haapiUIKitApplication, flowResult: forwarder)
        super.init(rootView: HaapiFlowView(viewModel: viewModel, deepLinks: deepLinks))
        forwarder.onFinish = { [weak self] in self?.dismissFlow() }
        let closeButton = UIBarButtonItem(
            systemItem: .close, primaryAction: UIAction { [weak self] _ in self?.closeTapped() })
        // The theme's closeButtonTintColorName (hui_primary by default), as the app's asset catalog defines it.
        let theme = haapiUIKitApplication.theme
        closeButton.tintColor = UIColor(
            named: theme.string("closeButtonTintColorName", in: "HaapiFlowViewController") ?? "hui_primary")
        closeButton.accessibilityLabel = haapiUIKitApplication.haapiUIKitConfiguration.strings[.close]
        navigationItem.leftBarButtonItem = closeButton
        HaapiLogger.debug(
            UIKitFollowUpTag.layout,
            "presenting HaapiFlowViewController; themable elements: HaapiFlowViewController, ActionableButton.*, TextField, MessageView.*, SelectorView, PollingView"
        )
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { nil }

    private func closeTapped() {
        guard viewModel.haapiUIKitApplication.haapiUIKitConfiguration.shouldConfirmFlowInterruption else {
            return interrupt()
        }
        let strings = viewModel.haapiUIKitApplication.haapiUIKitConfiguration.strings
        let alert = UIAlertController(title: strings[.cancelFlowTitle], message: nil, preferredStyle: .alert)
        alert.addAction(UIAlertAction(title: strings[.keepGoing], style: .cancel))
        alert.addAction(
            UIAlertAction(title: strings[.cancelFlowConfirm], style: .destructive) { [weak self] _ in self?.interrupt()
            })
        present(alert, animated: true)
    }

    private func interrupt() {
        viewModel.cancel()
    }

    private func dismissFlow() {
        if let navigation = navigationController, navigation.viewControllers.first !== self {
            navigation.popViewController(animated: true)
        } else {
            dismiss(animated: true)
        }
    }
}

/// Tells the app's result listener, then closes the screens.
private final class ClosingResultForwarder: HaapiFlowResult {
    let target: HaapiFlowResult
    var onFinish: (() -> Void)?

    init(_ target: HaapiFlowResult) { self.target = target }

    func didReceiveOAuthTokenModel(_ oAuthTokenModel: OAuthTokenModel) {
        target.didReceiveOAuthTokenModel(oAuthTokenModel)
        onFinish?()
    }

    func didReceiveError(_ error: Error) {
        target.didReceiveError(error)
        onFinish?()
    }
}

public struct HaapiFlowViewControllerRepresentable: UIViewControllerRepresentable {
    let haapiUIKitApplication: HaapiUIKitApplication
    let flowResult: HaapiFlowResult
    let deepLinks: any HaapiDeepLinkManageable

    public init(
        haapiUIKitApplication: HaapiUIKitApplication, flowResult: HaapiFlowResult,
        deepLinks: any HaapiDeepLinkManageable
    ) {
        self.haapiUIKitApplication = haapiUIKitApplication
        self.flowResult = flowResult
        self.deepLinks = deepLinks
    }

    public func makeUIViewController(context: Context) -> UINavigationController {
        UINavigationController(
            rootViewController: HaapiFlowViewController(
                haapiUIKitApplication: haapiUIKitApplication, flowResult: flowResult, deepLinks: deepLinks))
    }

    public func updateUIViewController(_ controller: UINavigationController, context: Context) {}
}
#endif
