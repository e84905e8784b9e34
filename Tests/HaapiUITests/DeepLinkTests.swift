import Foundation
import HaapiUI
import Testing

@Suite("HaapiDeepLinkManager")
struct DeepLinkTests {
    @Test("a URL reaches the flow that expects its prefix, once; others are left to the app")
    func routing() {
        let manager = HaapiDeepLinkManager()
        let received = LockedURLs()
        manager.expect(urlWithPrefix: "app://haapi") { received.append($0) }
        #expect(!manager.handle(url: URL(string: "other://x")!))
        #expect(manager.handle(url: URL(string: "app://haapi?_resume_nonce=abc")!))
        #expect(!manager.handle(url: URL(string: "app://haapi?_resume_nonce=again")!))
        #expect(received.values.map(\.absoluteString) == ["app://haapi?_resume_nonce=abc"])
        manager.expect(urlWithPrefix: "app://haapi") { received.append($0) }
        manager.cancelExpectation()
        #expect(!manager.handle(url: URL(string: "app://haapi")!))
    }

    @Test("the redirect URI must end where the URL's query, fragment or path begins: a longer name is another route")
    func prefixBoundary() {
        let manager = HaapiDeepLinkManager()
        let received = LockedURLs()
        for (url, taken) in [
            ("app://haapievil?_resume_nonce=abc", false), ("app://haap", false), ("app://haapi-2?x=1", false),
            ("app://haapi#done", true), ("app://haapi/callback?_resume_nonce=abc", true),
            ("app://haapi?_resume_nonce=abc", true), ("app://haapi", true),
        ] {
            manager.expect(urlWithPrefix: "app://haapi") { received.append($0) }
            #expect(manager.handle(url: URL(string: url)!) == taken, "\(url)")
        }
        #expect(received.values.count == 4)
        // A redirect URI that ends in a separator already marks the boundary.
        manager.expect(urlWithPrefix: "https://app.example/return/") { received.append($0) }
        #expect(manager.handle(url: URL(string: "https://app.example/return/done?code=1")!))
        // One with a query of its own goes on with `&`.
        manager.expect(urlWithPrefix: "app://haapi?tenant=a") { received.append($0) }
        #expect(!manager.handle(url: URL(string: "app://haapi?tenant=ab")!))
        #expect(manager.handle(url: URL(string: "app://haapi?tenant=a&_resume_nonce=x")!))
    }
}

final class LockedURLs: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [URL] = []
    var values: [URL] { lock.withLock { stored } }
    func append(_ url: URL) { lock.withLock { stored.append(url) } }
}
