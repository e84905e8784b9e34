import Foundation
@_spi(Tooling) import HaapiUI

/// The terminal's way to "open" another app (BankID, Encap): print its link for the user to open on a device
/// that has the app, and let the flow go on to its waiting step.
struct PrintedLinkOpener: ExternalAppOpener {
    let io: TerminalIO

    func open(_ url: URL) async -> Bool {
        io.say("  Open this link on a device with the app:")
        io.say("    " + io.paint(url.absoluteString, .cyan))
        return true
    }
}
