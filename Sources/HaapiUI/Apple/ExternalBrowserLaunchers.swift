#if canImport(AuthenticationServices) && canImport(UIKit) && !os(watchOS)
import AuthenticationServices
import UIKit

/// External-browser steps in an in-app browser session (`ASWebAuthenticationSession`), the UI kit's default.
///
/// A thin adapter: what happens to the returned URL is `HaapiFlowViewModel.openExternalBrowser(deepLinks:)`,
/// tested on Linux with a fake launcher; this file is compiled only by the iOS workflow.
///
/// A custom-scheme redirect is caught by the session itself. An `https` redirect (a universal link) is caught
/// by the session from iOS 17.4 on (`Callback.https`, which needs the app's associated domain); before that, and
/// for a plain `http` redirect, the page opens in the system browser and the redirect comes back through the
/// app's URL handler.
///
/// The default asks the system to share the browser's cookies (single sign-on with Safari, after the
/// system's "wants to use … to sign in" prompt); `prefersEphemeralWebBrowserSession` keeps nothing and asks
/// nothing. Pass one to `HaapiUIKitConfigurationBuilder.setExternalBrowserLauncher(_:)` to choose.
@MainActor
public final class WebAuthenticationSessionLauncher: ExternalBrowserLauncher {
    /// Whether the session is private: no cookies shared with Safari or kept afterwards.
    public nonisolated let prefersEphemeralWebBrowserSession: Bool
    /// The session on screen and the anchor it is shown over: the session must be kept alive until it
    /// calls back (the system drops a released one), and it holds its presentation provider weakly.
    private var running: (session: ASWebAuthenticationSession, anchor: PresentationAnchor)?

    /// A launcher whose sessions share the browser's cookies, or keep none (`prefersEphemeralWebBrowserSession`).
    public nonisolated init(prefersEphemeralWebBrowserSession: Bool = false) {
        self.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
    }

    /// Shows `url` in a web authentication session; see `ExternalBrowserLauncher`.
    public func launch(_ url: URL, callbackPrefix: String) async -> ExternalBrowserOutcome {
        guard let redirect = URL(string: callbackPrefix), let scheme = redirect.scheme?.lowercased() else {
            return .closed
        }
        let (returns, delivery) = AsyncStream.makeStream(
            of: ExternalBrowserOutcome.self, bufferingPolicy: .bufferingNewest(1))
        // Sendable: it only hands the outcome over, whichever thread the session calls back on.
        let completion: ASWebAuthenticationSession.CompletionHandler = { @Sendable returned, _ in
            delivery.yield(returned.map(ExternalBrowserOutcome.returned) ?? .closed)
            delivery.finish()
        }
        let session: ASWebAuthenticationSession
        if scheme == "https" || scheme == "http" {
            guard scheme == "https", #available(iOS 17.4, *), let host = redirect.host else {
                return await SystemBrowserLauncher().launch(url, callbackPrefix: callbackPrefix)
            }
            let path = redirect.path.isEmpty ? "/" : redirect.path
            session = ASWebAuthenticationSession(
                url: url, callback: .https(host: host, path: path), completionHandler: completion)
        } else if #available(iOS 17.4, *) {
            session = ASWebAuthenticationSession(
                url: url, callback: .customScheme(scheme), completionHandler: completion)
        } else {
            session = ASWebAuthenticationSession(url: url, callbackURLScheme: scheme, completionHandler: completion)
        }
        // One page at a time: a second launch closes the first one's session.
        running?.session.cancel()
        let anchor = PresentationAnchor()
        session.presentationContextProvider = anchor
        session.prefersEphemeralWebBrowserSession = prefersEphemeralWebBrowserSession
        running = (session, anchor)
        defer { if running?.session === session { running = nil } }
        guard session.start() else { return .closed }
        for await outcome in returns { return outcome }
        return .closed
    }
}

/// External-browser steps in the system browser (`setUseDefaultExternalBrowser(true)`): the redirect comes
/// back through the app's URL handler, which hands it to the flow's `HaapiDeepLinkManageable`.
public struct SystemBrowserLauncher: ExternalBrowserLauncher {
    /// The system browser's launcher.
    public init() {}

    /// Opens `url` in the system browser; see `ExternalBrowserLauncher`.
    public func launch(_ url: URL, callbackPrefix: String) async -> ExternalBrowserOutcome {
        await UIApplicationOpener().open(url) ? .returnsThroughApp : .closed
    }
}

/// The window the web authentication sheet is shown over.
///
/// The class is main-actor isolated (it reads `UIApplication`), and its witness is `nonisolated` so the
/// conformance compiles whether the SDK's protocol requirement is main-actor isolated (newer SDKs) or not
/// (Xcode 16.0's): `ASWebAuthenticationSession` calls it on the main thread, which `assumeIsolated` states
/// and checks at run time instead of hopping.
@MainActor
final class PresentationAnchor: NSObject, ASWebAuthenticationPresentationContextProviding {
    nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
        MainActor.assumeIsolated {
            UIApplication.shared.connectedScenes.compactMap { ($0 as? UIWindowScene)?.keyWindow }.first
                ?? ASPresentationAnchor()
        }
    }
}
#endif
