import Foundation

/// Routes the URLs the app is opened with (the app's redirect URI, after an external browser) to the flow
/// waiting for them.
public protocol HaapiDeepLinkManageable: AnyObject, Sendable {
    /// Call from the app's URL handler (`onOpenURL`, `application(_:open:options:)`). Returns whether a flow took it.
    @discardableResult
    func handle(url: URL) -> Bool
    /// Registers the flow that waits for a URL starting with `prefix`; a later registration replaces it.
    func expect(urlWithPrefix prefix: String, handler: @escaping @Sendable (URL) -> Void)
    func cancelExpectation()
}

public final class HaapiDeepLinkManager: HaapiDeepLinkManageable, @unchecked Sendable {
    public static let shared = HaapiDeepLinkManager()
    private let lock = NSLock()
    private var waiting: (prefix: String, handler: @Sendable (URL) -> Void)?

    public init() {}

    @discardableResult
    public func handle(url: URL) -> Bool {
        let handler: (@Sendable (URL) -> Void)? = lock.withLock {
            guard let waiting, url.absoluteString.hasPrefix(waiting.prefix) else { return nil }
            self.waiting = nil
            return waiting.handler
        }
        guard let handler else { return false }
        handler(url)
        return true
    }

    public func expect(urlWithPrefix prefix: String, handler: @escaping @Sendable (URL) -> Void) {
        lock.withLock { waiting = (prefix, handler) }
    }

    public func cancelExpectation() {
        lock.withLock { waiting = nil }
    }
}
