import Foundation
import HaapiRawClient
@_spi(Tooling) import HaapiUI
import Testing

/// The headless view model, step kind by step kind, against the dev server.
@Suite("HaapiFlowViewModel", .timeLimit(.minutes(3)))
@MainActor
struct FlowViewModelTests {
    final class Recorder: HaapiFlowResult, @unchecked Sendable {
        var tokens: [OAuthTokenModel] = []
        var errors: [any Error] = []
        func didReceiveOAuthTokenModel(_ oAuthTokenModel: OAuthTokenModel) { tokens.append(oAuthTokenModel) }
        func didReceiveError(_ error: Error) { errors.append(error) }
    }

    @Test(
        "selector → password form; a wrong password shows a problem, the right one publishes tokens; Combine-style subscribers see every state"
    )
    func passwordFlow() async throws {
        let server = try await UITestServer.shared.get()
        let recorder = Recorder()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(), flowResult: recorder)
        var cancellables = Set<AnyCancellable>()
        var seenTypes: [String] = []
        var loadingChanges: [Bool] = []
        // The seed's subscription code, unchanged: Combine on Apple platforms, OpenCombine here.
        viewModel.$uiModel
            .receive(on: DispatchQueue.main)
            .sink(receiveValue: { model in if let model { seenTypes.append(model.step.type.rawValue) } })
            .store(in: &cancellables)
        viewModel.$isLoading.sink { loadingChanges.append($0) }.store(in: &cancellables)

        await viewModel.start()
        guard case .selector(let options)? = viewModel.uiModel?.content else {
            Issue.record("no selector")
            return
        }
        #expect(options.map(\.title).contains { $0.lowercased().contains("password") })
        try await viewModel.selectAuthenticator("password")
        let login = try #require(viewModel.forms.first)
        #expect(login.visibleFields.contains { $0.kind == .password && $0.isSecret })
        #expect(login.visibleFields.contains { $0.kind == .username || $0.name == "userName" })

        await viewModel.submit(login, values: ["userName": "demouser", "password": "wrong"])
        let problem = try #require(viewModel.uiModel?.problemMessages.first)
        #expect(problem.kind == .error)
        #expect(viewModel.error == nil && viewModel.oAuthModel == nil)

        await viewModel.submit(login, values: ["userName": "demouser", "password": "Password1"])
        let tokens = try #require(viewModel.oAuthModel as? OAuthTokenModel)
        #expect(tokens.tokenType == "DPoP")
        #expect(tokens.idTokenClaims?["sub"]?.stringValue != nil)
        #expect(!"\(tokens)".contains(tokens.accessToken))
        #expect(recorder.tokens.count == 1 && recorder.errors.isEmpty)
        try await viewModel.wait(seconds: 2) { seenTypes.count >= 2 }
        #expect(seenTypes.first == "authentication-step")
        #expect(loadingChanges.contains(true) && loadingChanges.last == false)

        // OAuthLifecycle refreshes with the application's key.
        let refreshed = try await OAuthLifecycle.refreshToken(
            try #require(tokens.refreshToken), haapiUIKitApplication: viewModel.haapiUIKitApplication
        ).get()
        #expect(refreshed.accessToken != tokens.accessToken)
        await viewModel.close()
    }

    @Test("invalid input is attached to the field it names")
    func invalidInputOnField() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application())
        await viewModel.start()
        try await viewModel.selectAuthenticator("password")
        let login = try #require(viewModel.forms.first)
        await viewModel.submit(login, values: ["userName": "", "password": ""])
        let marked = viewModel.forms.flatMap(\.fields).filter { $0.problem != nil }
        #expect(!marked.isEmpty, "\(String(describing: viewModel.uiModel?.problemMessages))")
        await viewModel.close()
    }

    @Test("e-mail code: the code form follows the username form")
    func emailCode() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application())
        await viewModel.start()
        try await viewModel.selectAuthenticator("email")
        await viewModel.submit(try #require(viewModel.forms.first), values: ["userName": "demouser"])
        let codeForm = try #require(viewModel.forms.first)
        let code = try #require(await server.server.outbox.latestCode(for: "demouser"))
        await viewModel.submit(codeForm, values: ["otp": code])
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        await viewModel.close()
    }

    @Test(
        "e-mail resend: the continue-same-step keeps the code form on screen with its message; the new code then signs in"
    )
    func emailResend() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application())
        await viewModel.start()
        try await viewModel.selectAuthenticator("email")
        await viewModel.submit(try #require(viewModel.forms.first), values: ["userName": "demouser"])
        let forms = viewModel.forms
        let resend = try #require(forms.first { $0.kind == "resend" }, "\(forms.map(\.kind))")
        let before = viewModel.revision
        await viewModel.submit(resend)
        #expect(viewModel.error == nil && viewModel.revision > before)
        #expect(viewModel.forms.map(\.kind) == forms.map(\.kind), "the code form stays")
        #expect(viewModel.uiModel?.problemMessages.contains { $0.text.contains("new code") } == true)
        let code = try #require(await server.server.outbox.latestCode(for: "demouser"))
        await viewModel.submit(try #require(viewModel.forms.first { $0.kind != "resend" }), values: ["otp": code])
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        await viewModel.close()
    }

    @Test("polling: automatic polls until another device approves, then the flow finishes by itself")
    func pollingApproved() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(polling: 0.2))
        await viewModel.start()
        try await viewModel.selectAuthenticator("approve")
        await viewModel.submit(try #require(viewModel.forms.first), values: ["userName": "approver"])
        guard case .polling(let polling)? = viewModel.uiModel?.content else {
            Issue.record("not polling")
            return
        }
        #expect(polling.status == .pending && polling.cancelAction != nil && polling.deadline != nil)
        #expect(viewModel.isPolling)
        #expect(try await server.approve("approver") == 200)
        try await viewModel.wait { viewModel.oAuthModel != nil || viewModel.error != nil }
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        await viewModel.close()
    }

    @Test("changes(): a renderer waiting on the stream is woken by the approval and sees the tokens, without sleeping")
    func changesWakeTheRenderer() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(polling: 0.2))
        await viewModel.start()
        try await viewModel.selectAuthenticator("approve")
        await viewModel.submit(try #require(viewModel.forms.first), values: ["userName": "approver"])
        let changes = viewModel.changes()
        let revision = viewModel.revision
        #expect(try await server.approve("approver") == 200)
        var wakes = 0
        for await _ in changes {
            wakes += 1
            if viewModel.oAuthModel != nil || viewModel.error != nil { break }
        }
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        #expect(wakes >= 1 && viewModel.revision > revision)
    }

    @Test("polling: cancel sends the cancel action and stops polling")
    func pollingCancelled() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(polling: 0.2))
        await viewModel.start()
        try await viewModel.selectAuthenticator("approve")
        await viewModel.submit(try #require(viewModel.forms.first), values: ["userName": "approver"])
        #expect(viewModel.isPolling)
        await viewModel.cancelPolling()
        #expect(!viewModel.isPolling)
        if case .polling(let polling)? = viewModel.uiModel?.content { #expect(polling.status != .pending) }
        #expect(try await server.approve("approver") == 404)  // nothing pending any more
        await viewModel.close()
    }

    @Test("polling: a timeout ends the flow with pollingTimedOut")
    func pollingTimeout() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(
            haapiUIKitApplication: try server.application(polling: 0.2, pollingTimeout: 1))
        await viewModel.start()
        try await viewModel.selectAuthenticator("approve")
        await viewModel.submit(try #require(viewModel.forms.first), values: ["userName": "approver"])
        try await viewModel.wait(seconds: 10) { viewModel.error != nil }
        guard case .pollingTimedOut? = viewModel.error as? HaapiUIError else {
            Issue.record("\(String(describing: viewModel.error))")
            return
        }
        await viewModel.close()
    }

    @Test("consent: the choices are forms; accepting finishes the flow")
    func consent() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(
            haapiUIKitApplication: try server.application(clientId: "ui-consent", redirect: "app://consent"))
        await viewModel.start()
        if case .selector = viewModel.uiModel?.content { try await viewModel.selectAuthenticator("password") }
        await viewModel.submit(
            try #require(viewModel.forms.first), values: ["userName": "demouser", "password": "Password1"])
        guard case .consent(let choices)? = viewModel.uiModel?.content else {
            Issue.record("no consent step: \(String(describing: viewModel.uiModel?.step.rawJSONString))")
            return
        }
        #expect(choices.count >= 2)
        await viewModel.submit(try #require(choices.first))
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        await viewModel.close()
    }

    @Test("external browser: the client operation gives the URL; the browser's return URL resumes the flow")
    func externalBrowser() async throws {
        let server = try await UITestServer.shared.get()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application())
        await viewModel.start()
        try await viewModel.selectAuthenticator("browser")
        guard case .clientOperation(let operation)? = viewModel.uiModel?.content, let url = operation.launchURL else {
            Issue.record("no client operation")
            return
        }
        #expect(operation.name == "external-browser-flow")
        let page = try await SignInPage.load(url.absoluteString).post(userName: "demouser", password: "Password1")
        let location = try #require(page.header("Location").flatMap(URL.init(string:)))
        #expect(await viewModel.resumeExternalBrowser(with: location))
        #expect(viewModel.oAuthModel is OAuthTokenModel, "\(String(describing: viewModel.error))")
        await viewModel.close()
    }

    @Test("cancel ends the flow with flowCancelled and tells the result listener")
    func cancelFlow() async throws {
        let server = try await UITestServer.shared.get()
        let recorder = Recorder()
        let viewModel = HaapiFlowViewModel(haapiUIKitApplication: try server.application(), flowResult: recorder)
        await viewModel.start()
        viewModel.cancel()
        guard case .flowCancelled? = viewModel.error as? HaapiUIError else {
            Issue.record("\(String(describing: viewModel.error))")
            return
        }
        #expect(recorder.errors.count == 1)
        await viewModel.close()
    }
}
