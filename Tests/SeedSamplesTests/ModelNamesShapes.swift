// Seed 000's reference names that an app's own unit tests and result handling touch, used as an app would write
// them with only `import HaapiSdk`: the model factories under `HaapiModel.`, the token responses as
// `OAuthResponse`, `ResponseAndData`, `RepresentationActionModel`, `Haapi`, `CryptoImportError`, `Masking` and
// `HaapiTokenResult`. Compiled in Swift 6 and in Swift 5 language mode (SeedSamplesSwift5Tests links this file).
import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

@Suite("Seed 000's model names, as app code writes them")
struct ModelNamesShapes {
    @Test("the model factories build typed steps, problems, actions, fields, properties and token responses")
    func factories() throws {
        let step = try HaapiModel.StepFactory.make(from: [
            "type": "polling-step",
            "properties": ["status": "pending"],
            "actions": [
                [
                    "template": "form", "kind": "poll",
                    "model": ["href": "https://login.example.com/poll", "method": "GET"],
                ] as [String: Any]
            ],
        ])
        let polling = try #require(step as? PollingStep)
        #expect(polling.status == .pending)

        let problem = try HaapiModel.ProblemFactory.make(from: [
            "type": "https://curity.se/problems/invalid-input", "title": "Form errors",
            "invalidFields": [["name": "otp", "reason": "invalidValue", "detail": "Six digits"]],
        ])
        #expect((problem as? InvalidInputProblem)?.invalidFields.first?.name == "otp")

        let action = try HaapiModel.ActionFactory.make(from: [
            "template": "selector", "kind": "authenticator-selector", "properties": ["authenticatorType": "bankid"],
            "model": ["options": [] as [Any]],
        ])
        let selector = try #require(action as? SelectorAction)
        #expect(selector.properties?.authenticatorType == "bankid")
        let model: any RepresentationActionModel = selector.actionModel
        #expect(model is SelectorActionModel)
        let formModel = try HaapiModel.ActionModelFactory.make(
            from: ["href": "/next", "method": "POST"], template: .form)
        #expect((formModel as? FormActionModel)?.href == "/next")

        let field = try HaapiModel.FormFieldFactory.make(from: ["name": "pw", "type": "password", "label": "Password"])
        #expect(field is PasswordFormField)
        let properties = try HaapiModel.PropertiesFactory.make(from: ["code": "c-1"], type: .oauthAuthorizationResponse)
        #expect((properties as? OAuthAuthorizationResponseProperties)?.code == "c-1")
        let content = try HaapiModel.ContentFactory.make(from: ["type": "authentication-step"])
        #expect(content.type == .authenticationStep)
        // The decoder's own checks: a step without its type is refused, not guessed.
        #expect(throws: HaapiDecodingError.self) { try HaapiModel.StepFactory.make(from: ["actions": [] as [Any]]) }

        let tokens = HaapiModel.TokenResponseFactory.make(from: ["access_token": "at", "token_type": "DPoP"])
        let error = HaapiModel.TokenResponseFactory.make(from: ["error": "invalid_grant"])
        let responses: [any OAuthResponse] = [tokens.oauthResponse, error.oauthResponse].compactMap { $0 }
        #expect(
            responses.map { $0.rawJSON["token_type"]?.stringValue ?? $0.rawJSON["error"]?.stringValue } == [
                "DPoP", "invalid_grant",
            ])
    }

    @Test("the raw-value aliases the seed lists are the text of the open enums")
    func rawValueAliases() {
        let texts: [String] = [
            ActionKind.RawValue("login"), ActionTemplate.RawValue("form"), ClientOperationName.RawValue("bankid"),
            FormFieldType.RawValue("text"), TextFormField.Kind.RawValue("email"), PollingStatus.RawValue("done"),
            ProblemType.RawValue("https://curity.se/problems/invalid-input"),
            RepresentationType.RawValue("polling-step"),
        ]
        #expect(ActionKind(rawValue: texts[0]) == .login && PollingStatus(rawValue: texts[5]) == .done)
    }

    @Test("ResponseAndData, Haapi, CryptoImportError, Masking and HaapiTokenResult")
    func otherNames() throws {
        let url = try #require(URL(string: "https://login.example.com/step"))
        let reply = ResponseAndData(
            statusCode: 200, headers: ["content-type": Haapi.mediaType], data: Data(#"{"type":"x"}"#.utf8), url: url)
        #expect(reply.response.statusCode == 200 && reply.data.count == 12)
        #expect(Haapi.mediaType == "application/vnd.auth+json" && Haapi.scope == "urn:se:curity:scopes:haapi")

        #expect(throws: CryptoImportError.notPEM) {
            _ = try ClientAuthenticationMethodJWTAsymmetric.signer(pem: "not a key", algorithm: .es256)
        }
        let refused = Result {
            try ClientAuthenticationMethodJWTAsymmetric(pem: "not a key", signatureAlgorithm: .es256)
        }
        let reason = (try? refused.get()) == nil ? "\(refused)" : ""
        #expect(reason.contains(CryptoImportError.notPEM.description), "\(reason)")

        let token = AccessToken(value: "secret-token-value", expiresOn: Date(), tokenType: "DPoP")
        let masking: any Masking = token
        #expect(masking.unmaskedDescription == "secret-token-value")
        #expect(!"\(token)".contains("secret-token-value"))

        let results: [HaapiTokenResult] = [.failure(.haapiTokenManagerIsClosed)]
        let codes = results.map { result -> String in
            switch result {
            case .success: return "token"
            case .failure(let error): return error.error
            }
        }
        #expect(codes == ["haapi_token_manager_is_closed"])
    }
}
