import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@Suite("Client operations (protocol notes §9)")
struct ClientOperationTests {
    static func step(
        _ model: String, extraActions: String = "", type: String = "authentication-step"
    ) throws -> any HaapiRepresentation {
        try decodeStep(
            #"{"type":"\#(type)","actions":[{"template":"client-operation","kind":"login","model":\#(model)}\#(extraActions)]}"#
        )
    }

    static let resumeForm =
        #"{"template":"form","kind":"continue","model":{"href":"https://idp.test/authn/resume","method":"GET","fields":[{"name":"_resume_nonce","type":"context"}]}}"#

    @Test("external browser flow: launch URL with redirect_uri, resume nonce from the callback")
    func externalBrowser() throws {
        let step = try #require(
            try Self.step(
                #"{"name":"external-browser-flow","arguments":{"href":"/authn/saml?x=1&redirect_uri=old"},"continueActions":[\#(Self.resumeForm)]}"#,
                extraActions: #",{"template":"form","kind":"cancel","model":{"href":"/cancel","method":"POST"}}"#)
                as? ExternalBrowserClientOperationStep)
        #expect(step.actionModel.name == .externalBrowserFlow)
        let base = try #require(URL(string: "https://idp.test:8443/"))
        let launch = try #require(step.urlToLaunch(redirectTo: "app://haapi/cb?a=b", relativeTo: base))
        #expect(
            launch.absoluteString == "https://idp.test:8443/authn/saml?x=1&redirect_uri=app%3A%2F%2Fhaapi%2Fcb%3Fa%3Db")
        #expect(
            step.formattedParametersFromURL(try #require(URL(string: "app://haapi/cb?_resume_nonce=n%2B1&x=2"))) == [
                "_resume_nonce": "n+1"
            ])
        #expect(step.formattedParametersFromURL(try #require(URL(string: "app://haapi/cb?error=x"))) == nil)
        #expect(step.continueFormActionModel?.fields.first?.type == .context)
        #expect(step.cancelAction != nil)
        expectDecodingError(
            #"{"type":"authentication-step","actions":[{"template":"client-operation","kind":"login","model":{"name":"external-browser-flow","arguments":{}}}]}"#,
            path: "actions[0].model.arguments.href", reason: .missingMember)
    }

    @Test("encap auto activation")
    func encap() throws {
        let step = try #require(
            try Self.step(
                #"{"name":"encap-auto-activation","arguments":{"href":"encap://x","activationCode":"459120"},"continueActions":[]}"#
            ) as? EncapClientOperationStep)
        #expect(step.actionModel.activationCode == "459120")
        #expect(step.actionModel.href == "encap://x")
    }

    static let creationOptions = """
        {"publicKey":{"rp":{"id":"idp.test","name":"IdP"},"user":{"id":"dXNlci0x","name":"alice","displayName":"Alice"},
         "challenge":"AAECAwQFBgcICQoLDA0ODw","pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"public-key","alg":-257}],
         "excludeCredentials":[{"type":"public-key","id":"Y3JlZA","transports":["internal"]}],"timeout":60000,
         "authenticatorSelection":{"authenticatorAttachment":"platform","residentKey":"required","requireResidentKey":true,"userVerification":"preferred"},
         "attestation":"none","hints":["client-device"],"extensions":{"credProps":true}}}
        """

    @Test("WebAuthn registration, passkeys shape: options decoded, credential posted as `credential`")
    func webAuthnRegistrationPasskeys() throws {
        let continueForm =
            #"{"template":"form","kind":"continue","model":{"href":"/reg","method":"POST","type":"application/json","fields":[{"name":"credential","type":"context"}]}}"#
        let fallback =
            #"{"template":"form","kind":"redirect","model":{"href":"/reg?_force_external_browser_flow=true","method":"GET"}}"#
        let step = try #require(
            try Self.step(
                #"{"name":"webauthn-registration","arguments":{"credentialCreationOptions":\#(Self.creationOptions)},"continueActions":[\#(continueForm)],"errorActions":[\#(fallback)]}"#,
                type: "registration-step") as? WebAuthnRegistrationClientOperationStep)
        let options = try #require(step.actionModel.credentialRequestOptions)
        #expect(options.relyingPartyID == "idp.test" && options.relyingPartyName == "IdP")
        #expect(
            options.userID == Data("user-1".utf8) && options.userName == "alice" && options.userDisplayName == "Alice")
        #expect(options.challenge == Data(0..<16))
        #expect(options.credentialParams.map(\.alg) == [-7, -257])
        #expect(options.excludeCredentials.first?.id == Data("cred".utf8))
        #expect(
            options.timeout == 60000 && options.authenticatorAttachment == "platform"
                && options.residentKey == "required")
        #expect(
            options.requireResidentKey == true && options.userVerification == "preferred"
                && options.attestation == "none")
        #expect(options.hints == ["client-device"] && options.extensions?["credProps"] == true)
        #expect(step.fallbackActions.count == 1)

        let parameters = step.formattedParametersForRegistration(
            credentialOptions: options, attestationObject: Data([0xA3, 0x01]), rawClientDataJSON: Data("{}".utf8),
            credentialID: Data([1, 2, 3]))
        #expect(parameters.keys.sorted() == ["credential"])
        let credential = try #require(parameters["credential"])
        #expect(credential["id"] == "AQID" && credential["rawId"] == "AQID" && credential["type"] == "public-key")
        #expect(credential["response"]?["attestationObject"] == "owE")
        #expect(credential["response"]?["clientDataJSON"] == "e30")
    }

    @Test("WebAuthn registration, any-device shape: platform and cross-platform field names")
    func webAuthnRegistrationAnyDevice() throws {
        let cross = Self.creationOptions.replacingOccurrences(of: "\"platform\"", with: "\"cross-platform\"")
        let step = try #require(
            try Self.step(
                #"{"name":"webauthn-registration","arguments":{"platformCredentialCreationOptions":\#(Self.creationOptions),"crossPlatformCredentialCreationOptions":\#(cross)},"continueActions":[]}"#
            ) as? WebAuthnRegistrationClientOperationStep)
        let platform = try #require(step.actionModel.platformCredentialRequestOptions)
        let crossPlatform = try #require(step.actionModel.crossPlatformCredentialRequestOptions)
        #expect(step.actionModel.credentialRequestOptions == nil)
        #expect(crossPlatform.authenticatorAttachment == "cross-platform")
        let data = Data([9])
        #expect(
            step.formattedParametersForRegistration(
                credentialOptions: platform, attestationObject: data, rawClientDataJSON: data, credentialID: data
            ).keys.sorted() == ["platformCredential"])
        #expect(
            step.formattedParametersForRegistration(
                credentialOptions: crossPlatform, attestationObject: data, rawClientDataJSON: data, credentialID: data
            ).keys.sorted() == ["crossPlatformCredential"])
    }

    @Test(
        "WebAuthn ids as browsers read them: a user id with non-zero trailing bits (abc123), padding, but no foreign symbols"
    )
    func lenientBase64URL() throws {
        for (sent, expected) in [
            ("abc123", [0x69, 0xB7, 0x35, 0xDB]), ("dXNlci0x", Array("user-1".utf8)), ("YQ==", [0x61]),
        ] {
            let options = Self.creationOptions.replacingOccurrences(of: "dXNlci0x", with: sent)
            let json =
                #"{"type":"registration-step","actions":[{"template":"client-operation","kind":"device-register","model":{"name":"webauthn-registration","arguments":{"credentialCreationOptions":\#(options)}}}]}"#
            guard
                case .representation(let step as WebAuthnRegistrationClientOperationStep) = try HaapiDecoder().decode(
                    Data(json.utf8), contentType: "application/vnd.auth+json")
            else {
                Issue.record("\(sent): not a registration step")
                continue
            }
            #expect(
                Array(step.actionModel.credentialRequestOptions?.userID ?? Data()) == expected,
                "\(sent)")
        }
        #expect(Base64URL.decodeForgiving("ab+/") == nil && Base64URL.decodeForgiving("a=bc") == nil)
        #expect(Base64URL.decodeForgiving("YQ=") == nil, "padding only completes a multiple of four")
    }

    @Test("WebAuthn registration without any options, or with a bad challenge, is an error at its path")
    func webAuthnRegistrationErrors() {
        expectDecodingError(
            #"{"type":"registration-step","actions":[{"template":"client-operation","kind":"device-register","model":{"name":"webauthn-registration","arguments":{}}}]}"#,
            path: "actions[0].model.arguments")
        let badChallenge = Self.creationOptions.replacingOccurrences(of: "AAECAwQFBgcICQoLDA0ODw", with: "not base64!")
        expectDecodingError(
            #"{"type":"registration-step","actions":[{"template":"client-operation","kind":"device-register","model":{"name":"webauthn-registration","arguments":{"credentialCreationOptions":\#(badChallenge)}}}]}"#,
            path: "actions[0].model.arguments.credentialCreationOptions.publicKey.challenge",
            reason: .invalidValue("not base64url"))
    }

    @Test("WebAuthn authentication: request options, allow lists beside or inside publicKey, assertion parameters")
    func webAuthnAuthentication() throws {
        let continueForm =
            #"{"template":"form","kind":"continue","model":{"href":"/authn","method":"POST","type":"application/json","fields":[{"name":"credential","type":"context"}]}}"#
        for placement in ["beside", "inside"] {
            let list = #""platformCredentials":[{"type":"public-key","id":"AQI"}],"crossPlatformCredentials":[]"#
            let publicKey =
                #"{"rpId":"idp.test","challenge":"AAEC","userVerification":"required","allowCredentials":[{"type":"public-key","id":"AQI","transports":["usb"]}],"timeout":30000\#(placement == "inside" ? "," + list : "")}"#
            let arguments =
                #"{"credentialRequestOptions":{"publicKey":\#(publicKey)}\#(placement == "beside" ? "," + list : "")}"#
            let step = try #require(
                try Self.step(
                    #"{"name":"webauthn-authentication","arguments":\#(arguments),"continueActions":[\#(continueForm)]}"#
                ) as? WebAuthnAuthenticationClientOperationStep)
            #expect(step.actionModel.relyingPartyID == "idp.test")
            #expect(step.actionModel.challengeData == Data([0, 1, 2]))
            #expect(step.actionModel.userVerificationPreference == "required")
            #expect(step.actionModel.credentialRequestOptions.allowCredentials.first?.transports == ["usb"])
            #expect(step.actionModel.platformAllowCredentials?.map(\.id) == [Data([1, 2])])
            #expect(step.actionModel.crossPlatformAllowCredentials?.isEmpty == true)

            let parameters = step.formattedParametersForAssertion(
                rawAuthenticatorData: Data([1]), rawClientDataJSON: Data("{}".utf8), signature: Data([2]),
                credentialID: Data([1, 2]), userID: Data("u".utf8))
            let credential = try #require(parameters["credential"])
            #expect(credential["id"] == "AQI" && credential["type"] == "public-key")
            #expect(
                credential["response"]?["authenticatorData"] == "AQ" && credential["response"]?["signature"] == "Ag")
            #expect(credential["response"]?["userHandle"] == "dQ" && credential["response"]?["clientDataJSON"] == "e30")
        }
    }

    @Test("an unknown operation is a generic client-operation step with its raw arguments")
    func unknownOperation() throws {
        let step = try #require(
            try Self.step(#"{"name":"teleport","arguments":{"where":"mars"},"continueActions":[\#(Self.resumeForm)]}"#)
                as? GenericClientOperationStep)
        #expect(step.clientOperationAction.model.name == .other(value: "teleport"))
        #expect(step.clientOperationAction.model.arguments?["where"] == "mars")
        #expect(step.continueActions.count == 1)
    }

    @Test("a polling step that carries a BankID operation stays a PollingStep")
    func pollingWithOperation() throws {
        let step = try #require(
            try decodeStep(
                """
                {"type":"polling-step","properties":{"status":"pending","interval":"2000"},"actions":[
                  {"template":"client-operation","kind":"login","model":{"name":"bankid","arguments":{"autoStartToken":"t"},"continueActions":[]}},
                  {"template":"form","kind":"poll","model":{"href":"/poll","method":"GET"}},
                  {"template":"form","kind":"cancel","model":{"href":"/cancel","method":"POST"}}]}
                """) as? PollingStep)
        #expect((step.clientOperation?.model as? BankIdClientOperationActionModel)?.autoStartToken == "t")
        #expect(step.pollAction?.model.href == "/poll")
        #expect(step.mainAction?.kind == .poll)
    }
}
