import Foundation
@_spi(Tooling) import HaapiDriver

/// Routes the URLs the app is opened with (the app's redirect URI, after an external browser) to the flow
/// waiting for them.
public protocol HaapiDeepLinkManageable: AnyObject, Sendable {
    /// Call from the app's URL handler (`onOpenURL`, `application(_:open:options:)`). Returns whether a flow took it.
    @discardableResult
    func handle(url: URL) -> Bool
    /// Registers the flow that waits for a URL starting with `prefix` (followed by nothing, a query, a fragment
    /// or a path below it); a later registration replaces it.
    func expect(urlWithPrefix prefix: String, handler: @escaping @Sendable (URL) -> Void)
    /// Stops waiting for a URL.
    func cancelExpectation()
}

/// Hands the URL an app is opened with to the flow that waits for it.
public final class HaapiDeepLinkManager: HaapiDeepLinkManageable, Sendable {
    /// The instance the seed's samples pass to every flow: an app is opened through one URL handler, so
    /// one router serves the whole process. `init()` makes another (tests, an app with its own routing).
    public static let shared = HaapiDeepLinkManager()
    private let waiting = LockedValue<(prefix: String, handler: @Sendable (URL) -> Void)?>(nil)

    /// A router of its own, not the shared one.
    public init() {}

    @discardableResult
    public func handle(url: URL) -> Bool {
        let handler: (@Sendable (URL) -> Void)? = waiting.withLock { waiting in
            guard let expected = waiting, RedirectPrefix.matches(url, prefix: expected.prefix) else { return nil }
            waiting = nil
            return expected.handler
        }
        guard let handler else { return false }
        handler(url)
        return true
    }

    public func expect(urlWithPrefix prefix: String, handler: @escaping @Sendable (URL) -> Void) {
        waiting.set((prefix, handler))
    }

    public func cancelExpectation() {
        waiting.set(nil)
    }
}
