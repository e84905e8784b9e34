import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

/// Small helpers that walk a flow through `HaapiManager` the way an app would.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension HaapiResult {
    func step() throws -> any HaapiRepresentation {
        switch self {
        case .representation(let step): return step
        case .problem(let problem):
            throw TestFailure("expected a step, got problem \(problem.type.rawValue): \(problem.rawJSONString)")
        case .error(let error): throw TestFailure("expected a step, got error \(error)")
        }
    }

    func step<T>(_ type: T.Type) throws -> T {
        let step = try step()
        guard let typed = step as? T else {
            throw TestFailure("expected \(T.self), got \(Swift.type(of: step)): \(step.rawJSONString)")
        }
        return typed
    }

    var haapiError: HaapiError? {
        if case .error(let error) = self { return error as? HaapiError }
        return nil
    }
}

extension HaapiManager {
    /// start → (selector) → the authenticator whose href ends in `/id`.
    func startAuthenticator(_ id: String) async throws -> any HaapiRepresentation {
        var step = try await start().step()
        if let selector = step as? AuthenticatorSelectorStep {
            guard let option = selector.authenticators.first(where: { $0.action.model.href.hasSuffix("/" + id) }) else {
                throw TestFailure("no authenticator \(id)")
            }
            step = try await submitForm(option.action.model).step()
        }
        return step
    }

    /// A password login to the authorization code.
    func passwordLogin(username: String = "demouser", password: String = "Password1") async throws -> String {
        let form = try await startAuthenticator("password")
        guard let login = form as? InteractiveFormStep, let action = (login.actions.first as? FormAction)?.model else {
            throw TestFailure("no login form: \(form.rawJSONString)")
        }
        let done = try await submitForm(action, parameters: ["userName": username, "password": password]).step(
            OAuthAuthorizationResponseStep.self)
        guard let code = done.oauthAuthorizationResponseProperties.code else { throw TestFailure("no code") }
        return code
    }
}

extension TokenResponse {
    func success() throws -> SuccessfulTokenResponse {
        switch self {
        case .successfulToken(let token): return token
        case .errorToken(let error): throw TestFailure("token error \(error.error): \(error.errorDescription ?? "")")
        case .error(let error): throw TestFailure("error \(error)")
        }
    }
}
