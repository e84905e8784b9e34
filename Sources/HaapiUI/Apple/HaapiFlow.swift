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
            // The flow shows its own back button (kit's `hui_back`) next to close; see HaapiFlowViewController.
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
///
/// Every way out before the flow ends (close, back in `.stack`, swiping the sheet down or from the edge)
/// goes through `FlowInterruptionGuard`: with `shouldConfirmFlowInterruption` each asks first.
@MainActor
public final class HaapiFlowViewController: UIHostingController<HaapiFlowView>, UIAdaptivePresentationControllerDelegate
{
    private let viewModel: HaapiFlowViewModel
    private let interruption: FlowInterruptionGuard
    private var ended = false

    public init(
        haapiUIKitApplication: HaapiUIKitApplication, flowResult: HaapiFlowResult,
        deepLinks: any HaapiDeepLinkManageable
    ) {
        let forwarder = ClosingResultForwarder(flowResult)
        viewModel = HaapiFlowViewModel(haapiUIKitApplication: haapiUIKitApplication, flowResult: forwarder)
        interruption = FlowInterruptionGuard(configuration: haapiUIKitApplication.haapiUIKitConfiguration)
        super.init(rootView: HaapiFlowView(viewModel: viewModel, deepLinks: deepLinks))
        forwarder.onFinish = { [weak self] in
            self?.ended = true
            self?.dismissFlow()
        }
        let theme = haapiUIKitApplication.theme
        let strings = haapiUIKitApplication.haapiUIKitConfiguration.strings
        // The theme's closeButtonTintColorName (hui_primary by default): the app's asset, else the kit's.
        let tint = theme.uiColor(
            theme.string("closeButtonTintColorName", in: "HaapiFlowViewController") ?? "hui_primary")
        navigationItem.leftBarButtonItems = interruption.leadingButtons.map { exit in
            let item: UIBarButtonItem
            switch exit {
            case .back:
                // Our own back button, so leaving this way can ask first; titled with the kit's `hui_back`.
                item = UIBarButtonItem(
                    title: strings[.back], image: UIImage(systemName: "chevron.backward"),
                    primaryAction: UIAction { [weak self] _ in self?.leave(by: .back) })
                item.accessibilityLabel = strings[.back]
            case .close, .swipe:
                item = UIBarButtonItem(
                    systemItem: .close, primaryAction: UIAction { [weak self] _ in self?.leave(by: .close) })
                item.accessibilityLabel = strings[.close]
            }
            item.tintColor = tint
            return item
        }
        // The system back button would leave without asking; ours stands in its place.
        navigationItem.hidesBackButton = interruption.presentationMode == .stack
        HaapiLogger.debug(
            UIKitFollowUpTag.layout,
            "presenting HaapiFlowViewController; themable elements: HaapiFlowViewController, ActionableButton.*, TextField, MessageView.*, SelectorView, PollingView"
        )
    }

    @available(*, unavailable)
    required init?(coder: NSCoder) { nil }

    public override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        // Swipes: the edge swipe of a stack and the pull-down of a sheet ask like the buttons do.
        navigationController?.interactivePopGestureRecognizer?.isEnabled = interruption.allowsSystemSwipe
        let presented = navigationController ?? self
        presented.isModalInPresentation = !interruption.allowsSystemSwipe
        presented.presentationController?.delegate = self
    }

    public override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        navigationController?.interactivePopGestureRecognizer?.isEnabled = true
    }

    /// A pull-down refused by `isModalInPresentation`: ask, as the close button does.
    public nonisolated func presentationControllerDidAttemptToDismiss(
        _ presentationController: UIPresentationController
    ) {
        MainActor.assumeIsolated { leave(by: .swipe) }
    }

    private func leave(by exit: FlowExit) {
        guard interruption.asksBeforeLeaving(by: exit, flowEnded: ended) else { return interrupt() }
        let words = interruption.confirmation
        let alert = UIAlertController(title: words.title, message: nil, preferredStyle: .alert)
        alert.addAction(UIAlertAction(title: words.keepGoing, style: .cancel))
        alert.addAction(
            UIAlertAction(title: words.leave, style: .destructive) { [weak self] _ in self?.interrupt() })
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
