/// The alert a renderer shows when a flow fails and `shouldAutoHandleFlowErrorFeedback` is on: a title, the
/// error in words, and the button that dismisses it (`HaapiFlowViewModel.acknowledgeErrorFeedback()`).
public struct FlowErrorFeedback: Sendable, Equatable {
    public let title: String
    public let message: String
    public let dismissTitle: String
}
