/// The alert a renderer shows when a flow fails and `shouldAutoHandleFlowErrorFeedback` is on: a title, the
/// error in words, and the button that dismisses it (`HaapiFlowViewModel.acknowledgeErrorFeedback()`).
public struct FlowErrorFeedback: Sendable, Equatable {
    /// The alert's title.
    public let title: String
    /// What went wrong, for the user.
    public let message: String
    /// The button that dismisses the alert.
    public let dismissTitle: String
}
