/// The authenticators of a selector step shown as tabs (`AuthenticatorSelectionPresentation.tabs`): the
/// renderer draws the tab bar from `options` and the selected authenticator's screen from the view model's
/// `uiModel`; choosing a tab is `HaapiFlowViewModel.selectTab(_:)`.
public struct AuthenticatorTabs: Sendable {
    /// The authenticators, one per tab.
    public let options: [SelectorOptionUIModel]
    /// The tab shown.
    public let selectedIndex: Int
}
