import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@Suite("Vendor fixtures (ios-haapi-demo-app)", .enabled(if: Fixtures.available, Fixtures.skipMessage))
struct FixtureTests {
    static let representationFiles = [
        "authenticationStepFormRepresentation", "authenticationStepSelectorRepresentation",
        "bankIdSameDeviceClientOperation",
        "bankIdSelectSameOrOtherDevice", "continueSameStep", "duo", "launchExternalBrowser",
        "messagesWithTextAndImageLinks",
        "oauthAuthorizationResponse", "oauthAuthorizationResponseRepresentation", "pollingStep", "pollingStepDone",
        "redirect",
        "redirectionStepRepresentation", "selectAuthentication", "selectAuthenticationWithLinks", "usernamePassword",
    ]
    static let problemFiles = [
        "incorrectCredentialsProblem", "incorrectCredentialsProblemWithMessages", "usernamePasswordFormErrors",
    ]

    @Test("all 22 files are present")
    func inventory() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path).filter {
            $0.hasSuffix(".json")
        }
        #expect(names.count == 22)
        #expect(
            Set(names)
                == Set(
                    (Self.representationFiles + Self.problemFiles + ["fieldInvalid", "fieldValid"]).map { $0 + ".json" }
                ))
    }

    @Test("every representation and problem keeps its raw JSON exactly", arguments: representationFiles + problemFiles)
    func rawJSONRoundTrip(name: String) throws {
        let original = try JSONParser().parse(Fixtures.data(name))
        let raw: JSONValue
        switch try Fixtures.decode(name) {
        case .representation(let step): raw = step.rawJSON
        case .problem(let problem): raw = problem.rawJSON
        }
        #expect(raw == original)
        #expect(try JSONParser().parse(raw.serialized()) == original)
    }

    @Test(
        "classification matches the fixtures README",
        arguments: [
            ("authenticationStepFormRepresentation", "InteractiveFormStep"),
            ("authenticationStepSelectorRepresentation", "AuthenticatorSelectorStep"),
            ("bankIdSameDeviceClientOperation", "BankIdClientOperationStep"),
            ("bankIdSelectSameOrOtherDevice", "InteractiveFormStep"),
            ("continueSameStep", "ContinueSameStep"),
            ("duo", "InteractiveFormStep"),
            ("launchExternalBrowser", "GenericRepresentationStep"),
            ("messagesWithTextAndImageLinks", "InteractiveFormStep"),
            ("oauthAuthorizationResponse", "OAuthAuthorizationResponseStep"),
            ("oauthAuthorizationResponseRepresentation", "OAuthAuthorizationResponseStep"),
            ("pollingStep", "PollingStep"),
            ("pollingStepDone", "PollingStep"),
            ("redirect", "RedirectionStep"),
            ("redirectionStepRepresentation", "RedirectionStep"),
            ("selectAuthentication", "AuthenticatorSelectorStep"),
            ("selectAuthenticationWithLinks", "AuthenticatorSelectorStep"),
            ("usernamePassword", "InteractiveFormStep"),
        ])
    func classification(name: String, expected: String) throws {
        let step = try Fixtures.representation(name)
        #expect(String(describing: type(of: step)) == expected)
    }

    @Test("login form: fields, titles, links, metadata")
    func loginForm() throws {
        let step = try #require(
            try Fixtures.representation("authenticationStepFormRepresentation") as? InteractiveFormStep)
        #expect(step.type == .authenticationStep)
        #expect(step.metadata?.viewName == "authenticator/html-form/authenticate/get")
        #expect(step.metadata?.templateArea == "html1")
        #expect(step.links.map(\.rel) == ["forgot-password", "forgot-account-id", "register-create"])
        #expect(step.links.first?.title?.literal == "Forgot your password?")
        let form = try #require(step.formActions.first)
        #expect(form.kind == .login)
        #expect(form.model.method == "POST")
        #expect(form.model.type == "application/x-www-form-urlencoded")
        #expect(form.model.title?.literal == "Login")
        #expect(form.model.actionTitle?.literal == "Login")
        #expect(form.model.fields.map(\.name) == ["userName", "password"])
        #expect(form.model.fields[0] is UsernameFormField)
        #expect(form.model.fields[1] is PasswordFormField)
        #expect(form.model.fields.allSatisfy { $0.isRequired })
        #expect(form.model.fields[0].label?.literal == "Username")
    }

    @Test("authenticator selectors: options, titles and types")
    func selectors() throws {
        let small = try #require(
            try Fixtures.representation("authenticationStepSelectorRepresentation") as? AuthenticatorSelectorStep)
        #expect(small.title?.literal == "Select Authentication Method")
        #expect(small.authenticators.map(\.type) == ["google", "username"])
        #expect(small.authenticators.map { $0.title?.literal } == ["google1", "username"])
        #expect(small.authenticators[0].action.model.href == "/dev/authn/authenticate/google1")
        #expect(small.authenticators[0].action.model.method == "GET")

        let large = try #require(try Fixtures.representation("selectAuthentication") as? AuthenticatorSelectorStep)
        #expect(large.authenticators.count == 40)
        let types = Set(large.authenticators.compactMap(\.type))
        #expect(
            types.isSuperset(of: [
                "html-form", "sms", "pingfederate", "email", "test", "group", "encap", "google", "totp",
                "twitter", "bankid", "duo", "ping-idp-adapter", "windows", "saml", "netidaccess", "oidc", "facebook",
                "username",
            ]))

        let withLinks = try #require(
            try Fixtures.representation("selectAuthenticationWithLinks") as? AuthenticatorSelectorStep)
        #expect(withLinks.links.count == 3)
    }

    @Test("BankID client operation: arguments, continue/error actions, cancel")
    func bankID() throws {
        let step = try #require(
            try Fixtures.representation("bankIdSameDeviceClientOperation") as? BankIdClientOperationStep)
        #expect(step.actionModel.name == .bankID)
        #expect(step.actionModel.autoStartToken == "04b7c1bd-6d7b-46c0-b8ed-00f5cf39688c")
        #expect(step.actionModel.href?.hasPrefix("bankid:///?autostarttoken=") == true)
        #expect(step.actionModel.redirect?.hasPrefix("https%3A%2F%2F") == true)
        #expect(step.continueActions.map(\.kind) == [.redirect])
        #expect(step.errorActions.map(\.kind) == [.bankIDOtherDevice])
        let fallback = try #require(step.errorActions.first as? FormAction)
        #expect(fallback.model.fields.map(\.type) == [.username, .hidden])
        #expect(fallback.model.fields[0].placeholder == "yyyymmddnnnn")
        #expect(step.cancelAction?.model.method == "POST")
        #expect(step.continueFormActionModel?.href.hasSuffix("/poller") == true)
    }

    @Test("BankID device choice forms have the bankid kinds")
    func bankIDChoice() throws {
        let step = try #require(try Fixtures.representation("bankIdSelectSameOrOtherDevice") as? InteractiveFormStep)
        #expect(step.formActions.map(\.kind) == [.bankIDSameDevice, .bankIDOtherDevice])
        #expect(step.formActions[0].model.fields.first?.value == "true")
    }

    @Test("continue-same-step carries its message")
    func continueSame() throws {
        let step = try #require(try Fixtures.representation("continueSameStep") as? ContinueSameStep)
        #expect(step.messages.map(\.text.literal) == ["SMS sent"])
        #expect(step.messages.first?.classList == ["info"])
        #expect(step.actions.isEmpty)
    }

    @Test("Duo: nested selectors and continueActions inside a form model")
    func duo() throws {
        let step = try Fixtures.representation("duo")
        let devices = try #require(step.actions.first as? SelectorAction)
        #expect(devices.kind == .deviceSelector)
        let firstDevice = try #require(devices.model.options.first as? SelectorAction)
        #expect(firstDevice.kind == .deviceOption)
        let sms = try #require(
            firstDevice.model.options.compactMap { $0 as? FormAction }.first { $0.title?.literal == "sms" })
        let passcode = try #require(sms.model.continueActions.first as? FormAction)
        #expect(passcode.model.fields.map(\.name) == ["device", "factor", "passcode"])
        #expect(passcode.model.fields[2] is TextFormField)
    }

    @Test("legacy launch template degrades to a generic action inside a generic step")
    func legacyLaunch() throws {
        let step = try #require(try Fixtures.representation("launchExternalBrowser") as? GenericRepresentationStep)
        let action = try #require(step.actions.first as? GenericAction)
        #expect(action.template == .other(value: "launch"))
        #expect(action.kind == .other(value: "external-browser"))
        #expect(action.model?["href"]?.stringValue?.contains("_launch_nonce=") == true)
        #expect(action.rawJSON["template"] == "launch")
    }

    @Test("encap pairing: messages with classes, QR data link, select options")
    func encapPairing() throws {
        let step = try #require(try Fixtures.representation("messagesWithTextAndImageLinks") as? InteractiveFormStep)
        #expect(step.type == .registrationStep)
        #expect(step.messages.map(\.classList) == [["info", "heading"], ["info"], ["info", "activationCode"]])
        let qr = try #require(step.links.first)
        #expect(qr.rel == "activation")
        #expect(qr.isDataLink)
        #expect(qr.mediaType == "image/png")
        let form = try #require(step.formActions.first)
        #expect(form.kind == .deviceRegister)
        let select = try #require(form.model.fields.last as? SelectFormField)
        #expect(select.options.map(\.value) == ["phone", "tablet", "other"])
        #expect(select.options.map(\.label.literal) == ["Phone", "Tablet", "Other"])
    }

    @Test("authorization responses: code, state and the redirect link")
    func authorizationResponse() throws {
        let full = try #require(
            try Fixtures.representation("oauthAuthorizationResponse") as? OAuthAuthorizationResponseStep)
        #expect(full.oauthAuthorizationResponseProperties.code == "OZxymZHVjkEhf9fajYz0jNPOaJaQpXTg")
        #expect(full.oauthAuthorizationResponseProperties.state == "foo")
        #expect(full.links.first?.rel == "authorization-response")
        let minimal = try #require(
            try Fixtures.representation("oauthAuthorizationResponseRepresentation") as? OAuthAuthorizationResponseStep)
        #expect(minimal.oauthAuthorizationResponseProperties.code != nil)
        #expect(minimal.oauthAuthorizationResponseProperties.state == nil)
    }

    @Test("polling: pending offers poll and cancel; done offers the redirect form")
    func polling() throws {
        let pending = try #require(try Fixtures.representation("pollingStep") as? PollingStep)
        #expect(pending.status == .pending)
        #expect(pending.pollAction?.model.method == "GET")
        #expect(pending.cancelAction?.title?.literal == "Cancel")
        #expect(pending.mainAction?.kind == .poll)
        #expect(pending.clientOperation == nil)

        let done = try #require(try Fixtures.representation("pollingStepDone") as? PollingStep)
        #expect(done.status == .done)
        #expect(done.mainAction?.kind == .redirect)
        #expect(done.mainAction?.model.fields.first?.value == "true")
        #expect(done.pollingProperties.interval == nil)
    }

    @Test("redirection steps expose their single form")
    func redirection() throws {
        let step = try #require(try Fixtures.representation("redirect") as? RedirectionStep)
        #expect(step.action.kind == .redirect)
        #expect(step.action.model.href.contains("resumePath=%2Fdev%2Foauth%2Fauthorize"))
        #expect(step.metadata?.viewName == "/templates/redirect")
    }

    @Test("problems: incorrect credentials (with and without messages) and invalid input")
    func problems() throws {
        guard case .problem(let plain) = try Fixtures.decode("incorrectCredentialsProblem") else {
            throw CancellationError()
        }
        #expect(plain is Problem)
        #expect(plain.type == .incorrectCredentialsProblem)
        guard case .problem(let withMessages) = try Fixtures.decode("incorrectCredentialsProblemWithMessages") else {
            throw CancellationError()
        }
        #expect(withMessages.messages.map(\.text.literal) == ["Foo", "Bar"])
        #expect(withMessages.title?.literal == "Incorrect credentials")
        guard case .problem(let invalid) = try Fixtures.decode("usernamePasswordFormErrors") else {
            throw CancellationError()
        }
        let input = try #require(invalid as? InvalidInputProblem)
        #expect(input.invalidFields.map(\.name) == ["password", "userName"])
        #expect(input.invalidFields.map(\.reason) == ["invalidValue", "invalidValue"])
        #expect(input.invalidFields(named: "userName").first?.detail?.literal == "You have to enter your username")
        #expect(input.type.isRecoverableInStep)
    }

    @Test("fieldValid decodes; fieldInvalid is a clean error at `name`")
    func fields() throws {
        let valid = try HaapiDecoder().decodeFormField(Fixtures.data("fieldValid"))
        #expect(valid is UsernameFormField)
        #expect(valid.name == "A field")
        #expect(valid.label == nil && valid.value == nil && valid.placeholder == nil)
        #expect(
            throws: HaapiDecodingError(
                path: JSONPath(components: [.member("name")]),
                reason: .typeMismatch(expected: "string", found: "number"))
        ) {
            try HaapiDecoder().decodeFormField(Fixtures.data("fieldInvalid"))
        }
    }
}
