import Foundation

/// The ways a user can leave the flow screens before the flow ends.
public enum FlowExit: Sendable, CaseIterable {
    /// The close button.
    case close
    /// The back button, in `.stack` presentation.
    case back
    /// Swiping the sheet down (`.modal`) or from the edge (`.stack`).
    case swipe
}

/// Whether leaving the flow asks first (`shouldConfirmFlowInterruption`), the same for every way out, and
/// which buttons the flow's navigation bar shows. The screens (UIKit) follow it; the logic is here, where
/// Linux tests reach it.
public struct FlowInterruptionGuard: Sendable {
    /// Whether leaving mid-flow asks first.
    public let confirms: Bool
    /// How the screens are presented.
    public let presentationMode: PresentationMode
    /// The words of the confirmation.
    public let strings: HaapiUIStrings

    /// The guard the configuration asks for.
    public init(configuration: HaapiUIKitConfiguration) {
        confirms = configuration.shouldConfirmFlowInterruption
        presentationMode = configuration.presentationMode
        strings = configuration.strings
    }

    /// Whether leaving by `exit` asks first. Every way out asks alike; once the flow has ended nothing asks.
    public func asksBeforeLeaving(by exit: FlowExit, flowEnded: Bool) -> Bool {
        confirms && !flowEnded
    }

    /// The navigation bar's leading buttons, in order: in `.stack` the back button stays next to close.
    public var leadingButtons: [FlowExit] {
        presentationMode == .stack ? [.back, .close] : [.close]
    }

    /// Whether the system's own swipe-to-leave stays on (off when leaving must ask: the screens ask instead).
    public var allowsSystemSwipe: Bool { !confirms }

    /// The confirmation's title and its two buttons.
    public var confirmation: (title: String, keepGoing: String, leave: String) {
        (strings[.cancelFlowTitle], strings[.keepGoing], strings[.cancelFlowConfirm])
    }
}
