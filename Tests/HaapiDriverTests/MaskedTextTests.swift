import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Testing

/// The one set of masking rules the SDK's log, the Authentication Hub log, the `haapi` tool and the dev server
/// share: each rule with a value it must hide and one it must leave.
@Suite("MaskedText: what a log or an inspector shows of a secret")
struct MaskedTextTests {
    @Test("a token shows six characters and its length; a short one only its length; a secret only its length")
    func tokensAndSecrets() {
        #expect(MaskedText.token("eyJhbGciOiJFUzI1NiJ9.payload") == "eyJhbG…(28 chars)")
        #expect(MaskedText.token("abc123") == "…(6 chars)")
        #expect(MaskedText.secret("Password1") == "(9 chars)")
    }

    @Test("by name, in any case: secrets, tokens, the fields a step declared; other values as they are")
    func byName() {
        #expect(MaskedText.value("Password1", named: "Password") == "(9 chars)")
        #expect(MaskedText.value("a-refresh-token-value", named: "REFRESH_TOKEN") == "a-refr…(21 chars)")
        #expect(MaskedText.value("1234", named: "pinCode", declared: ["pinCode"]) == "(4 chars)")
        #expect(MaskedText.value("demouser", named: "userName") == "demouser")
    }

    @Test("a URL's query values are masked by their names; the rest of the URL is kept")
    func urlQuery() {
        let masked = MaskedText.urlQuery("app://haapi/cb?code=abcdefghijklmnopq&state=s1&_resume_nonce=n0123456789abc")
        #expect(masked == "app://haapi/cb?code=abcdef…(17 chars)&state=s1&_resume_nonce=n01234…(14 chars)")
        #expect(MaskedText.urlQuery("https://login.example/authn") == "https://login.example/authn")
    }

    @Test("a URL for a one-line log loses its userinfo, query and fragment, and is cut to 200 characters")
    func url() {
        #expect(
            MaskedText.url("https://user:pw@login.example:8443/cb?code=secret#frag")
                == "https://…@login.example:8443/cb?…")
        #expect(MaskedText.url("not a url") == "(not a URL, 9 chars)")
        let long = MaskedText.url("https://login.example/" + String(repeating: "a", count: 400))
        #expect(long.count == 201 && long.hasSuffix("…"))
    }

    @Test("JSON: secrets and tokens at any depth, addresses with codes in their query; the shape is kept")
    func json() throws {
        let value = try JSONParser().parse(
            #"{"access_token":"eyJhbGciOiJFUzI1NiJ9.x","links":[{"href":"/cb?code=abcdefghijklmnop"}],"#
                + #""nested":{"password":"pw","title":"Login"}}"#)
        let masked = MaskedText.json(value)
        #expect(masked["access_token"] == .string("eyJhbG…(22 chars)"))
        #expect(masked["links"]?[0]?["href"] == .string("/cb?code=abcdef…(16 chars)"))
        #expect(masked["nested"]?["password"] == .string("(2 chars)"))
        #expect(masked["nested"]?["title"] == .string("Login"))
    }
}
