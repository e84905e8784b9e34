import Foundation
@_spi(Tooling) import HaapiSdk
import HaapiServer
import Testing

/// The seed-shaped view controller, run against the dev server in this process: the synchronous
/// `build()`, completion handlers on the main actor, `[String: Any]` form values.
@Suite("The seeds' sample shapes run")
@MainActor
struct SeedSampleRunTests {
    /// Waits (bounded) until the controller has recorded `count` results.
    func waitForResults(_ controller: FlowViewController, count: Int) async throws {
        for _ in 0..<600 where controller.results.count < count {
            try await Task.sleep(nanoseconds: 25_000_000)
        }
        try #require(controller.results.count >= count, "results so far: \(controller.results)")
    }

    @Test("synchronous build with the DCR fallback, a password login through completion handlers, tokens, a refresh")
    func seedShapedLogin() async throws {
        let server = try DevServer(
            configuration: try ServerConfiguration.embeddedDefault, store: ServerStore(path: nil))
        let running = try await server.start()
        defer { Task { await running.stop() } }
        let base = running.baseURL
        let configuration = HaapiConfiguration(
            name: "sample-dcr-" + UUID().uuidString, clientId: "haapi-dcr-main", baseURL: base,
            tokenEndpointURL: base.appendingPathComponent("oauth/token"),
            authorizationEndpointURL: base.appendingPathComponent("oauth/authorize"), appRedirect: "app://haapi",
            clientAuthenticationMethod: ClientAuthenticationMethodSecret("dcr-main-secret-change-me"))
        let controller = FlowViewController(haapiConfiguration: configuration)
        controller.buildAccessors(
            dcrConfiguration: DCRConfiguration(
                templateClientId: "haapi-dcr-template",
                clientRegistrationEndpointUrl: URL(string: "/oauth/register", relativeTo: base),
                storage: nil))
        controller.startFlow()
        try await waitForResults(controller, count: 1)
        if let selector = controller.lastStep as? AuthenticatorSelectorStep {
            let password = try #require(selector.authenticators.first { $0.action.model.href.hasSuffix("/password") })
            controller.submit(formActionModel: password.action.model, parameters: [:])
            try await waitForResults(controller, count: 2)
        }
        let form = try #require(controller.lastStep as? InteractiveFormStep, "\(controller.results)")
        let values: [String: Any] = ["userName": "demouser", "username": "demouser", "password": "Password1"]
        controller.submit(formActionModel: try #require((form.actions.first as? FormAction)?.model), parameters: values)
        try await waitForResults(controller, count: controller.results.count + 1)
        let tokens = try #require(
            controller.lastTokens, "\(controller.results) \(String(describing: controller.lastError))")
        #expect(tokens.tokenType == "DPoP")
        let refreshToken = try #require(tokens.refreshToken)

        // The accessor's OAuth manager went to the dynamic client the build registered.
        let before = controller.results.count
        controller.refresh(refreshToken)
        try await waitForResults(controller, count: before + 1)
        #expect(controller.results.last?.hasPrefix("tokens") == true, "\(controller.results)")
    }

    @Test("a synchronous build whose decision fails reports it from the first call, as HaapiResult.error")
    func deferredFailure() async throws {
        let configuration = FlowViewController.seedShapedConfiguration(server: "http://127.0.0.1:9")
        let controller = FlowViewController(haapiConfiguration: configuration)
        // haapi-demo has no credentials: the DCR fallback cannot be used, which the first call reports.
        controller.buildAccessors(
            dcrConfiguration: DCRConfiguration(templateClientId: "t", clientRegistrationEndpointUrl: nil, storage: nil))
        controller.startFlow()
        try await waitForResults(controller, count: 1)
        guard case .invalidConfiguration? = controller.lastError as? HaapiError else {
            Issue.record("expected invalidConfiguration, got \(String(describing: controller.lastError))")
            return
        }
    }
}
