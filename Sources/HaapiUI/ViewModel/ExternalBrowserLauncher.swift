import Foundation

/// Shows the page of an external-browser step (a federated login, a web authenticator) and says how the user
/// came back. Inject one to control how (or to test); on iOS the default is an `ASWebAuthenticationSession`,
/// or the system browser with `setUseDefaultExternalBrowser(true)`.
public protocol ExternalBrowserLauncher: Sendable {
    /// Shows `url`, whose sign-in ends by sending the browser to the app's redirect URI
    /// (`callbackPrefix`, the configuration's `appRedirect`).
    func launch(_ url: URL, callbackPrefix: String) async -> ExternalBrowserOutcome
}

/// How an external-browser page ended, as its launcher saw it.
public enum ExternalBrowserOutcome: Sendable, Equatable {
    /// The launcher caught the redirect itself (an in-app browser session) and hands over the URL.
    case returned(URL)
    /// The page is open in another app (the system browser): the redirect will reach the app's URL handler,
    /// which passes it to the flow's `HaapiDeepLinkManageable`.
    case returnsThroughApp
    /// The user closed the page, or it could not be shown: the step stays, and can be started again.
    case closed
}

/// The platform's launcher: an in-app browser session or the system browser on iOS (in `Apple/`), none
/// elsewhere, where the renderer shows the link instead.
func defaultExternalBrowserLauncher(systemBrowser: Bool) -> (any ExternalBrowserLauncher)? {
    #if canImport(AuthenticationServices) && canImport(UIKit) && !os(watchOS)
    return systemBrowser ? SystemBrowserLauncher() : WebAuthenticationSessionLauncher()
    #else
    return nil
    #endif
}
