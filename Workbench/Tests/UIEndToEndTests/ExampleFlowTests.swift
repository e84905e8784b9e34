import Foundation
@_spi(Tooling) import HaapiUI
import Testing

@testable import HaapiServer

/// The team flows of `Examples/flows/` (issue 39 item 5), each served as `haapi serve --config` serves it and
/// walked to tokens twice: with `HaapiManager`, as an app's own UI would drive it, and with the UI kit's
/// `HaapiFlowViewModel`. Together with the default configuration they reach every step type the SDK decodes.
@Suite("Examples/flows: each walked with HaapiManager and HaapiFlowViewModel", .timeLimit(.minutes(3)))
@MainActor
struct ExampleFlowTests {
    nonisolated static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Examples/flows")

    /// What a person would type in each example's fields, and which authenticator they pick.
    struct Example: Sendable, CustomStringConvertible {
        let file: String
        let authenticator: String
        let answers: [String: String]
        /// Step types the walk must see.
        let types: Set<String>
        var client = "haapi-demo"
        var redirect = "app://haapi"
        var description: String { file + "/" + authenticator }
    }

    /// The bank's chained login (password → SMS code → BankID or Encap → consent), each branch.
    nonisolated static let bankAnswers = ["userName": "alice", "password": "Password1", "code": "123456"]

    nonisolated static let examples = [
        Example(
            file: "one-time-code", authenticator: "sms-code", answers: ["username": "demouser", "otp": "123456"],
            types: ["authentication-step", "oauth-authorization-response"]),
        Example(
            file: "bankid", authenticator: "bankid", answers: [:],
            types: ["authentication-step", "polling-step", "oauth-authorization-response"]),
        Example(
            file: "encap", authenticator: "encap", answers: [:],
            types: ["authentication-step", "polling-step", "oauth-authorization-response"]),
        Example(
            file: "consent", authenticator: "country", answers: ["country": "no"],
            types: ["authentication-step", "user-consent-step", "oauth-authorization-response"]),
        Example(
            file: "recorded", authenticator: "acme", answers: ["employeeId": "e-1042", "deviceName": "Test phone"],
            types: ["authentication-step", "consentor-step", "registration-step", "oauth-authorization-response"]),
        Example(
            file: "bank", authenticator: "bankid", answers: bankAnswers,
            types: ["authentication-step", "polling-step", "user-consent-step", "oauth-authorization-response"],
            client: "bank-ios", redirect: "app://bank"),
        Example(
            file: "bank", authenticator: "encap", answers: bankAnswers,
            types: ["authentication-step", "polling-step", "user-consent-step", "oauth-authorization-response"],
            client: "bank-ios", redirect: "app://bank"),
    ]

    static func server(_ example: Example) async throws -> (DevServer, RunningDevServer) {
        let json = try Data(contentsOf: directory.appendingPathComponent(example.file + ".json"))
        let server = try DevServer(
            configuration: try ServerConfiguration.load(json: json), store: ServerStore(path: nil))
        return (server, try await server.start())
    }

    /// Opens nothing and says it did, as a phone with BankID installed would.
    struct InstalledApps: ExternalAppOpener {
        func open(_ url: URL) async -> Bool { true }
    }

    @Test(
        "walked with HaapiManager: every step answered as an app would, up to the code and DPoP-bound tokens",
        arguments: examples)
    func manager(_ example: Example) async throws {
        let (_, running) = try await Self.server(example)
        defer { Task { await running.stop() } }
        let base = running.baseURL
        let configuration = HaapiConfiguration(
            name: "examples-\(example.file)-\(example.authenticator)", clientId: example.client, baseURL: base,
            tokenEndpointURL: base.appendingPathComponent("oauth/token"),
            authorizationEndpointURL: base.appendingPathComponent("oauth/authorize"), appRedirect: example.redirect,
            attester: SoftwareAttester(), dpopKeyStorage: nil)
        let accessor = try await HaapiAccessorBuilder(haapiConfiguration: configuration).build()
        let manager = accessor.haapiManager
        var types: Set<String> = []
        var result = await manager.start()
        var code: String?
        for _ in 0..<30 where code == nil {
            guard case .representation(let step) = result else {
                Issue.record("\(example): \(result)")
                break
            }
            types.insert(step.type.rawValue)
            switch step {
            case let done as OAuthAuthorizationResponseStep:
                code = done.oauthAuthorizationResponseProperties.code
            case let selector as AuthenticatorSelectorStep:
                let option = try #require(
                    selector.authenticators.first { $0.action.model.href.hasSuffix("/" + example.authenticator) })
                result = await manager.submitForm(option.action.model)
            case let polling as PollingStep:
                let action = try #require(polling.mainAction, "\(example): a polling step without an action")
                result = await manager.submitForm(action.model)
            case let operation as any ClientOperationStep:
                let next = try #require(operation.continueFormActionModel, "\(example): nothing to continue with")
                result = await manager.submitForm(next)
            default:
                let form = try #require(step.actions.compactMap { $0 as? FormAction }.first, "\(example): \(step.type)")
                var values: [String: any Sendable] = [:]
                for field in form.model.fields where field.type != .hidden {
                    if let answer = example.answers[field.name] { values[field.name] = answer }
                }
                result = await manager.submitForm(form.model, parameters: values)
            }
        }
        let authorizationCode = try #require(code, "\(example): no code; saw \(types.sorted())")
        let tokens = await accessor.oAuthTokenManager.fetchAccessToken(with: authorizationCode, dpop: manager.dpop)
        guard case .successfulToken(let token) = tokens else {
            Issue.record("\(example): \(tokens)")
            return
        }
        #expect(token.tokenType == "DPoP")
        #expect(types.isSuperset(of: example.types), "\(example): saw \(types.sorted())")
        await manager.close()
    }

    @Test(
        "walked with HaapiFlowViewModel: forms, consent, polling and app launches up to the tokens", arguments: examples
    )
    func viewModel(_ example: Example) async throws {
        let (_, running) = try await Self.server(example)
        defer { Task { await running.stop() } }
        let base = running.baseURL
        let configuration = HaapiUIKitConfigurationBuilder(
            clientId: example.client, baseUrl: base, tokenEndpointUrl: base.appendingPathComponent("oauth/token"),
            authorizationEndpointUrl: base.appendingPathComponent("oauth/authorize"), appRedirect: example.redirect
        )
        .setScopes(["openid", "profile"]).setAutoPollingDuration(0.1).setAttester(SoftwareAttester())
        .setTokenBoundConfiguration(BoundedTokenConfiguration(keyPairType: .p256))
        .setExternalAppOpener(InstalledApps())
        .build()
        let viewModel = HaapiFlowViewModel(
            haapiUIKitApplication: HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: configuration).build())
        await viewModel.start()
        var types: Set<String> = []
        for _ in 0..<30 where viewModel.oAuthModel == nil {
            if let type = viewModel.uiModel?.step.type.rawValue { types.insert(type) }
            switch viewModel.uiModel?.content {
            case .selector(let options)?:
                let option = try #require(options.first { $0.model.href.hasSuffix("/" + example.authenticator) })
                await viewModel.select(option)
            case .forms(let forms)?, .consent(let forms)?:
                let form = try #require(forms.first)
                var values: [String: any Sendable] = [:]
                for field in form.fields { if let answer = example.answers[field.name] { values[field.name] = answer } }
                await viewModel.submit(form, values: values)
            case .clientOperation?:
                // BankID or Encap: the app is "opened", and the flow goes on to polling by itself.
                let previous = viewModel.uiModel?.step.rawJSONString
                #expect(await viewModel.launchExternalApp())
                try await viewModel.wait {
                    viewModel.uiModel?.step.rawJSONString != previous || viewModel.oAuthModel != nil
                }
            case .polling?:
                // The view model polls on its own until the step is done and then follows it.
                let previous = viewModel.uiModel?.step.rawJSONString
                try await viewModel.wait {
                    viewModel.uiModel?.step.rawJSONString != previous || viewModel.oAuthModel != nil
                }
            default:
                Issue.record(
                    "\(example): \(String(describing: viewModel.uiModel?.content)) \(String(describing: viewModel.error))"
                )
                await viewModel.close()
                return
            }
        }
        let tokens = try #require(
            viewModel.oAuthModel as? OAuthTokenModel, "\(example): \(String(describing: viewModel.error))")
        #expect(tokens.tokenType == "DPoP")
        let seen = types.union(["oauth-authorization-response"])
        #expect(
            seen.isSuperset(of: example.types.subtracting(["redirection-step"])), "\(example): saw \(types.sorted())")
        await viewModel.close()
    }

    @Test("every step type the SDK decodes is in an example or in the default configuration")
    func everyStepTypeReachable() throws {
        // The default configuration's own: redirection (every flow), continue-same-step (the e-mail code's resend).
        let fromDefault: Set<String> = ["redirection-step", "continue-same-step", "authentication-step"]
        let fromExamples = Self.examples.reduce(into: Set<String>()) { $0.formUnion($1.types) }
        let known = Set(RepresentationType.knownCases.map(\.rawValue))
        #expect(known.subtracting(fromDefault.union(fromExamples)).isEmpty, "\(known.subtracting(fromExamples))")
    }
}
