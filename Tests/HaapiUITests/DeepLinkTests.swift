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
}

final class LockedURLs: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [URL] = []
    var values: [URL] { lock.withLock { stored } }
    func append(_ url: URL) { lock.withLock { stored.append(url) } }
}
