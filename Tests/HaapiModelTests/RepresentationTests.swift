import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@Suite("Representations, actions, fields (protocol notes §2–7)")
struct RepresentationTests {
    @Test(
        "all eight representation types map to their enum cases",
        arguments: [
            ("authentication-step", RepresentationType.authenticationStep), ("redirection-step", .redirectionStep),
            ("registration-step", .registrationStep), ("polling-step", .pollingStep),
            ("continue-same-step", .continueSameStep),
            ("oauth-authorization-response", .oauthAuthorizationResponse), ("consentor-step", .consentorStep),
            ("user-consent-step", .userConsentStep),
        ])
    func representationTypes(raw: String, expected: RepresentationType) {
        #expect(RepresentationType(rawValue: raw) == expected)
        #expect(expected.rawValue == raw)
        #expect(expected.isKnown)
    }

    @Test("an unknown type is a generic step that keeps everything")
    func unknownType() throws {
        let json = #"{"type":"future-step","properties":{"answer":42},"extra":[1,2]}"#
        let step = try #require(try decodeStep(json) as? GenericRepresentationStep)
        #expect(step.type == .other(value: "future-step"))
        #expect(step.rawJSONString == json)
        #expect((step.properties as? GenericProperties)?.rawJSON["answer"] == 42)
    }

    @Test("consent step: checkboxes with checked and readonly, consent forms")
    func userConsent() throws {
        let step = try #require(
            try decodeStep(
                """
                {"type":"user-consent-step","actions":[{"template":"form","kind":"user-consent","title":"Accept","model":{
                  "href":"/consent","method":"POST","fields":[
                    {"name":"scope_openid","type":"checkbox","label":"OpenID","checked":true,"readonly":true,"value":"openid"},
                    {"name":"scope_email","type":"checkbox","label":"E-mail"}]}},
                  {"template":"form","kind":"cancel","model":{"href":"/consent/cancel","method":"POST"}}]}
                """) as? UserConsentStep)
        let form = try #require(step.formActions.first)
        #expect(form.kind == .userConsent)
        #expect(form.model.type == FormActionModel.urlEncodedMediaType)
        let fixed = try #require(form.model.fields[0] as? CheckboxFormField)
        #expect(fixed.checked && fixed.readonly && fixed.value == "openid")
        let optional = try #require(form.model.fields[1] as? CheckboxFormField)
        #expect(!optional.checked && !optional.readonly)
        #expect(step.formActions.last?.kind == .cancel)
    }

    @Test("consentor and registration steps are classified like authentication steps")
    func consentorAndRegistration() throws {
        let consentor = try decodeStep(
            #"{"type":"consentor-step","actions":[{"template":"form","kind":"continue","model":{"href":"/c","method":"POST"}}]}"#
        )
        #expect(consentor is InteractiveFormStep)
        #expect(consentor.type == .consentorStep)
        let registration = try decodeStep(
            #"{"type":"registration-step","actions":[{"template":"form","kind":"user-register","model":{"href":"/r","method":"POST","fields":[{"name":"email","type":"text","kind":"email"}]}}]}"#
        )
        #expect(registration is InteractiveFormStep)
        #expect((registration.actions.first as? FormAction)?.kind == .userRegister)
    }

    @Test("text fields: kind, min/max length (numbers or strings), required false, unknown kinds")
    func textFields() throws {
        let step = try decodeStep(
            """
            {"type":"authentication-step","actions":[{"template":"form","kind":"login","model":{"href":"/x","method":"post","fields":[
              {"name":"otp","type":"text","kind":"number","minLength":6,"maxLength":"8","placeholder":"123456"},
              {"name":"nick","type":"text","required":false},
              {"name":"fav","type":"text","kind":"hologram"},
              {"name":"pin","type":"secret-pin","label":"PIN"}]}}]}
            """)
        let form = try #require(step.actions.first as? FormAction)
        #expect(form.model.method == "POST")
        let otp = try #require(form.model.fields[0] as? TextFormField)
        #expect(otp.kind == .number && otp.minLength == 6 && otp.maxLength == 8 && otp.placeholder == "123456")
        #expect(otp.isRequired)
        #expect(!(form.model.fields[1].isRequired))
        #expect((form.model.fields[2] as? TextFormField)?.kind == .other(value: "hologram"))
        let unknown = try #require(form.model.fields[3] as? GenericFormField)
        #expect(unknown.type == .other(value: "secret-pin"))
        #expect(unknown.label?.literal == "PIN")
        #expect(unknown.rawJSON["type"] == "secret-pin")
    }

    @Test("select fields: options with selected")
    func selectFields() throws {
        let step = try decodeStep(
            """
            {"type":"authentication-step","actions":[{"template":"form","kind":"login","model":{"href":"/x","method":"POST","fields":[
              {"name":"c","type":"select","options":[{"label":"A","value":"a"},{"label":"B","value":"b","selected":true}]}]}}]}
            """)
        let select = try #require((step.actions.first as? FormAction)?.model.fields.first as? SelectFormField)
        #expect(select.options.map(\.selected) == [false, true])
        #expect(select.selectedValue == "b")
    }

    @Test("localisation keys are read beside titles, labels, texts and action titles")
    func localisationKeys() throws {
        let step = try decodeStep(
            """
            {"type":"authentication-step","messages":[{"textKey":"msg.sent","classList":[]}],
             "links":[{"href":"/h","rel":"help","title":"Help","titleKey":"link.help"}],
             "actions":[{"template":"form","kind":"login","titleKey":"login.title","model":{"href":"/x","method":"POST",
               "actionTitle":"Go","actionTitleKey":"login.go","fields":[{"name":"u","type":"username","labelKey":"login.user"}]}}]}
            """)
        #expect(step.messages.first?.text == Message(literal: nil, key: "msg.sent"))
        #expect(step.links.first?.title == Message(literal: "Help", key: "link.help"))
        let form = try #require(step.actions.first as? FormAction)
        #expect(form.title == Message(literal: nil, key: "login.title"))
        #expect(form.model.actionTitle == Message(literal: "Go", key: "login.go"))
        #expect(form.model.fields.first?.label?.key == "login.user")
        #expect(form.model.fields.first?.label?.description == "login.user")
    }

    @Test("messages: error classes are detected case-insensitively; links carry type hints")
    func messagesAndLinks() throws {
        let step = try decodeStep(
            """
            {"type":"authentication-step","messages":[{"text":"Bad","classList":["Is-Error"]},{"text":"Hi","classList":["info"]}],
             "links":[{"href":"data:image/svg+xml;base64,PHN2Zy8+","rel":"activation"},{"href":"/img","rel":"logo","type":"image/svg+xml"}],
             "metadata":{"viewName":"v","templateArea":"t","other":1}}
            """)
        #expect(step.messages.map(\.isError) == [true, false])
        #expect(step.links[0].mediaType == "image/svg+xml")
        #expect(!step.links[1].isDataLink && step.links[1].mediaType == "image/svg+xml")
        #expect(step.metadata?.rawJSON["other"] == 1)
    }

    @Test("unknown action kinds and templates are kept, never dropped")
    func openEnums() throws {
        let step = try decodeStep(
            """
            {"type":"authentication-step","actions":[
              {"template":"form","kind":"teleport","model":{"href":"/t","method":"POST"}},
              {"template":"hologram","kind":"beam","title":"Beam me up"}]}
            """)
        #expect(step is InteractiveFormStep)
        #expect(step.actions[0].kind == .other(value: "teleport"))
        #expect(step.actions[0].kind.rawValue == "teleport")
        let generic = try #require(step.actions[1] as? GenericAction)
        #expect(generic.template.rawValue == "hologram" && generic.title?.literal == "Beam me up")
        #expect(ActionKind(rawValue: "continue-auto-login") == .continueAutoLogin)
        #expect(ActionKind(rawValue: "device-authn") == .deviceAuthn)
    }

    @Test("a redirection step that asks for input is not followed automatically")
    func interactiveRedirection() throws {
        let step = try decodeStep(
            #"{"type":"redirection-step","actions":[{"template":"form","kind":"redirect","model":{"href":"/r","method":"POST","fields":[{"name":"u","type":"username"}]}}]}"#
        )
        #expect(step is GenericRepresentationStep)
    }

    @Test("authenticator selector rule: a selector with a non-authenticator option is an interactive step")
    func selectorRule() throws {
        let step = try decodeStep(
            """
            {"type":"authentication-step","actions":[{"template":"selector","kind":"authenticator-selector","model":{"options":[
              {"template":"form","kind":"select-authenticator","title":"pw","properties":{"authenticatorType":"html-form"},"model":{"href":"/a","method":"GET"}},
              {"template":"form","kind":"login","model":{"href":"/b","method":"POST"}}]}}]}
            """)
        #expect(step is InteractiveFormStep)
    }
}

@Suite("Properties (protocol notes §5)")
struct PropertiesTests {
    static func polling(_ properties: String) throws -> PollingStep {
        let step = try decodeStep(
            #"{"type":"polling-step","properties":\#(properties),"actions":[{"template":"form","kind":"poll","model":{"href":"/p","method":"GET"}}]}"#
        )
        return try #require(step as? PollingStep)
    }

    @Test("polling times as numbers")
    func numbers() throws {
        let step = try Self.polling(
            #"{"status":"pending","interval":2000,"maxWaitTime":120,"maxWaitRemainingTime":95,"recipientOfCommunication":"xxxx@xxxxple.com"}"#
        )
        #expect(step.pollingProperties.interval == 2000)
        #expect(step.pollingProperties.maxWaitTime == 120)
        #expect(step.pollingProperties.maxWaitRemainingTime == 95)
        #expect(step.pollingProperties.recipientOfCommunication == "xxxx@xxxxple.com")
        #expect((step.properties as? PollingProperties) == step.pollingProperties)
    }

    @Test("polling times as strings, including 2000.0")
    func strings() throws {
        let step = try Self.polling(
            #"{"status":"failed","interval":"2000.0","maxWaitTime":"120","maxWaitRemainingTime":" 5 "}"#)
        #expect(step.status == .failed)
        #expect(step.pollingProperties.interval == 2000)
        #expect(step.pollingProperties.maxWaitTime == 120)
        #expect(step.pollingProperties.maxWaitRemainingTime == 5)
    }

    @Test("a non-numeric interval, a missing status and a negative interval are errors with paths")
    func badPolling() {
        expectDecodingError(
            #"{"type":"polling-step","properties":{"status":"pending","interval":"soon"}}"#,
            path: "properties.interval", reason: .invalidValue("\"soon\" is not a whole number"))
        expectDecodingError(
            #"{"type":"polling-step","properties":{"interval":1}}"#, path: "properties.status", reason: .missingMember)
        expectDecodingError(#"{"type":"polling-step"}"#, path: "properties", reason: .missingMember)
        expectDecodingError(
            #"{"type":"polling-step","properties":{"status":"pending","interval":-5}}"#, path: "properties.interval")
        expectDecodingError(
            #"{"type":"polling-step","properties":{"status":"pending","interval":true}}"#,
            path: "properties.interval", reason: .typeMismatch(expected: "number or numeric string", found: "boolean"))
    }

    @Test("unknown polling status is kept")
    func unknownStatus() throws {
        #expect(try Self.polling(#"{"status":"paused"}"#).status == .other(value: "paused"))
    }

    @Test("authorization response properties, with expires_in as number or string")
    func authorizationResponse() throws {
        let step = try #require(
            try decodeStep(
                """
                {"type":"oauth-authorization-response","properties":{"code":"c1","state":"s","scope":"openid","iss":"https://idp",
                 "session_state":"ss","access_token":"at","token_type":"bearer","expires_in":"300","id_token":"it","refresh_token":"rt","custom":"x"}}
                """) as? OAuthAuthorizationResponseStep)
        let properties = step.oauthAuthorizationResponseProperties
        #expect(
            properties.code == "c1" && properties.state == "s" && properties.scope == "openid"
                && properties.iss == "https://idp")
        #expect(properties.sessionState == "ss" && properties.accessToken == "at" && properties.tokenType == "bearer")
        #expect(properties.expiresIn == 300 && properties.idToken == "it" && properties.refreshToken == "rt")
        #expect(properties.rawJSON["custom"] == "x")
    }
}
