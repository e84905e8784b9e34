import Foundation
@_spi(Tooling) import HaapiUI
import NetworkFaults

@testable import HaapiServer

/// The dev server in process on 127.0.0.1, with a consent client added.
final class UITestServer: Sendable {
    let server: DevServer
    let running: RunningDevServer
    var base: URL { running.baseURL }

    /// With `proxy`, the server's public URL is the proxy's, so the flow's requests go through it.
    init(behind proxy: NetworkFaultProxy? = nil) async throws {
        var configuration = try ServerConfiguration.embeddedDefault
        configuration.clients.append(
            ClientConfiguration(
                id: "ui-consent", attestation: .software, tokenBoundCodes: true, dpopNonce: true,
                redirectURIs: ["app://consent"], scopes: ["openid", "profile"], consent: true))
        configuration.users.append(
            UserConfiguration(
                username: "approver", passwordHash: ServerConfiguration.demoPasswordHash, email: "approver@example.com")
        )
        server = try DevServer(configuration: configuration, store: ServerStore(path: nil))
        running = try await server.start(publicURL: proxy?.url.absoluteString)
        proxy?.forward(to: running.port)
    }

    static let shared = Shared()

    actor Shared {
        private var started: UITestServer?
        func get() async throws -> UITestServer {
            if let started { return started }
            let server = try await UITestServer()
            started = server
            return server
        }
    }

    func application(
        clientId: String = "haapi-demo", redirect: String = "app://haapi", polling: TimeInterval = 0.2,
        pollingTimeout: TimeInterval = 30, passkeys: (any WebAuthnAuthenticator)? = nil,
        selection: AuthenticatorSelectionPresentation = .list, browser: (any ExternalBrowserLauncher)? = nil,
        requestTimeout: TimeInterval? = nil
    ) throws -> HaapiUIKitApplication {
        var builder = HaapiUIKitConfigurationBuilder(
            clientId: clientId, baseUrl: base, tokenEndpointUrl: base.appendingPathComponent("oauth/token"),
            authorizationEndpointUrl: base.appendingPathComponent("oauth/authorize"), appRedirect: redirect
        )
        .setRevocationEndpointURL(base.appendingPathComponent("oauth/revoke"))
        .setScopes(["openid", "profile"])
        .setAutoPollingDuration(polling)
        .setPollingTimeout(pollingTimeout)
        .setAttester(SoftwareAttester())
        .setTokenBoundConfiguration(BoundedTokenConfiguration(keyPairType: .p256))
        .setAuthenticationSelectionPresentation(selection)
        if let passkeys { builder = builder.setPasskeyAuthenticator(passkeys) }
        if let browser { builder = builder.setExternalBrowserLauncher(browser) }
        if let requestTimeout { builder = builder.setRequestTimeout(requestTimeout) }
        return HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: builder.build()).build()
    }

    /// Approves the newest pending request of `user` through the admin endpoints, as `haapi approve` does.
    func approve(_ user: String) async throws -> Int {
        // The admin pages answer on the server's own loopback address, not its public URL (a proxy's).
        let base = URL(string: server.localURL) ?? base
        let listing = try await defaultHTTPTransport().send(
            HTTPRequest(
                method: "GET", url: URL(string: base.absoluteString + "/admin/approvals?user=\(user)") ?? base))
        guard let id = (try? JSONParser().parse(listing.body))?["approvals"]?[0]?["id"]?.stringValue else { return 404 }
        return try await defaultHTTPTransport().send(
            HTTPRequest(
                method: "POST", url: base.appendingPathComponent("admin/approve"),
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data("approval=\(id)".utf8))
        ).statusCode
    }
}

struct UITestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@MainActor
extension HaapiFlowViewModel {
    var forms: [FormUIModel] {
        switch uiModel?.content {
        case .forms(let forms)?, .consent(let forms)?: forms
        default: []
        }
    }

    func selectAuthenticator(_ id: String) async throws {
        guard case .selector(let options)? = uiModel?.content else {
            throw UITestFailure("not a selector: \(String(describing: uiModel?.step.rawJSONString))")
        }
        guard let option = options.first(where: { $0.model.href.hasSuffix("/" + id) }) else {
            throw UITestFailure("no \(id)")
        }
        await select(option)
    }

    /// Waits (polling the published state) until `condition` holds or `seconds` pass.
    func wait(seconds: Double = 20, until condition: () -> Bool) async throws {
        let end = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < end else {
                throw UITestFailure(
                    "timed out waiting; uiModel: \(String(describing: uiModel?.step.type)), error: \(String(describing: error))"
                )
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }
}
