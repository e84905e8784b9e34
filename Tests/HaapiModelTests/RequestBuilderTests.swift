import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@Suite("Request building for forms and links (protocol notes §1.4–1.5)")
struct RequestBuilderTests {
    static let base = URL(string: "https://idp.example.com:8443/base/")!

    static func form(_ model: String) throws -> FormActionModel {
        let step = try decodeStep(
            #"{"type":"authentication-step","actions":[{"template":"form","kind":"login","model":\#(model)}]}"#)
        return try #require(step.actions.first as? FormAction).model
    }

    static func body(_ request: HaapiRequest) -> String { String(decoding: request.body ?? Data(), as: UTF8.self) }

    static let loginForm = """
        {"href":"/authn/login","method":"POST","fields":[{"name":"userName","type":"username","value":"prefilled"},
         {"name":"password","type":"password"},{"name":"csrf","type":"hidden","value":"server-token"},
         {"name":"_resume_nonce","type":"context"},{"name":"remember","type":"text"}]}
        """

    @Test(
        "user values override field values; hidden fields keep theirs; context fields are filled by the client; unknown names are ignored"
    )
    func valueRules() throws {
        let request = try HaapiRequestBuilder.request(
            submitting: Self.form(Self.loginForm),
            parameters: [
                "userName": "alice", "password": "s3cret", "csrf": "forged", "_resume_nonce": "n1", "unknown": "x",
            ],
            baseURL: Self.base)
        #expect(Self.body(request) == "userName=alice&password=s3cret&csrf=server-token&_resume_nonce=n1")
        let defaults = try HaapiRequestBuilder.request(submitting: Self.form(Self.loginForm), baseURL: Self.base)
        #expect(Self.body(defaults) == "userName=prefilled&csrf=server-token")
    }

    @Test("POST urlencoded: body, content type, accept header, absolute URL")
    func postURLEncoded() throws {
        let request = try HaapiRequestBuilder.request(
            submitting: Self.form(Self.loginForm), parameters: ["password": "p"], baseURL: Self.base)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://idp.example.com:8443/authn/login")
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(request.headers["Accept"] == "application/vnd.auth+json")
    }

    @Test("special characters are percent-encoded: + & = space % and non-ASCII")
    func percentEncoding() throws {
        let request = try HaapiRequestBuilder.request(
            submitting: Self.form(Self.loginForm), parameters: ["userName": "a+b&c=d e", "password": "p%20ä😀/?#"],
            baseURL: Self.base)
        #expect(
            Self.body(request)
                == "userName=a%2Bb%26c%3Dd+e&password=p%2520%C3%A4%F0%9F%98%80%2F%3F%23&csrf=server-token")
        let decoded = try #require(FormURLEncoding.decode(Self.body(request)))
        #expect(decoded.map(\.value) == ["a+b&c=d e", "p%20ä😀/?#", "server-token"])
    }

    @Test("form decoding: empty parts skipped, first = splits, bad escapes and non-UTF-8 refused")
    func formDecoding() throws {
        func pairs(_ text: String) -> [String]? { FormURLEncoding.decode(text)?.map { "\($0.name)|\($0.value)" } }
        #expect(pairs("") == [])
        #expect(pairs("a=1&&b=2&") == ["a|1", "b|2"])
        #expect(pairs("a&=b&c=d=e&f=") == ["a|", "|b", "c|d=e", "f|"])
        #expect(pairs("n+m=%41%c3%a4+%2B") == ["n m|Aä +"])
        #expect(pairs("é=ü") == ["é|ü"])
        for bad in ["a=%", "a=%4", "a=%G1", "%zz=1", "a=%FF", "a=%C3", "a=%C3%28"] {
            #expect(pairs(bad) == nil, "\(bad)")
        }
        // Raw bytes that are not UTF-8 (a request body) are refused too.
        let raw: [UInt8] = Array("a=".utf8) + [0xC3, 0x28]
        #expect(raw.withUnsafeBufferPointer { FormURLEncoding.decode(utf8: $0) } == nil)
        let valid: [UInt8] = Array("a=".utf8) + [0xC3, 0xA4]
        #expect(valid.withUnsafeBufferPointer { FormURLEncoding.decode(utf8: $0) }?.first?.value == "ä")
        #expect(FormURLEncoding.decodeComponent("a%20b+c") == "a b c")
    }

    @Test("PUT puts the values in the body too; an empty form sends no body")
    func putAndEmpty() throws {
        let put = try HaapiRequestBuilder.request(
            submitting: Self.form(#"{"href":"/p","method":"PUT","fields":[{"name":"a","type":"text"}]}"#),
            parameters: ["a": 1], baseURL: Self.base)
        #expect(Self.body(put) == "a=1")
        let empty = try HaapiRequestBuilder.request(
            submitting: Self.form(#"{"href":"/p","method":"POST"}"#), baseURL: Self.base)
        #expect(empty.body == nil && empty.headers["Content-Type"] == nil)
    }

    @Test("GET appends values to the query, keeping the query already in href")
    func getQuery() throws {
        let form = try Self.form(
            #"{"href":"https://other.test/poll?state=s%2F1","method":"GET","fields":[{"name":"q","type":"text"},{"name":"h","type":"hidden","value":"v w"}]}"#
        )
        let request = try HaapiRequestBuilder.request(submitting: form, parameters: ["q": "x&y"], baseURL: Self.base)
        #expect(request.url.absoluteString == "https://other.test/poll?state=s%2F1&q=x%26y&h=v+w")
        #expect(request.body == nil)
        let bare = try HaapiRequestBuilder.request(
            submitting: Self.form(#"{"href":"/authn/authenticate/pw","method":"GET"}"#), baseURL: Self.base)
        #expect(bare.url.absoluteString == "https://idp.example.com:8443/authn/authenticate/pw")
    }

    @Test("GET refuses values that are not text")
    func getRejectsObjects() throws {
        let form = try Self.form(#"{"href":"/g","method":"GET","fields":[{"name":"c","type":"context"}]}"#)
        #expect(throws: HaapiRequestBuildingError.valueNotURLEncodable(field: "c", valueType: "object")) {
            try HaapiRequestBuilder.request(
                submitting: form, parameters: ["c": JSONValue.object(["a": 1])], baseURL: Self.base)
        }
    }

    @Test("application/json forms get a JSON body with object values; GET is refused")
    func jsonForms() throws {
        let form = try Self.form(
            #"{"href":"/webauthn","method":"POST","type":"application/json","fields":[{"name":"credential","type":"context"},{"name":"mode","type":"hidden","value":"passkey"}]}"#
        )
        let credential: JSONValue = ["id": "AQI", "response": ["clientDataJSON": "e30"]]
        let request = try HaapiRequestBuilder.request(
            submitting: form, parameters: ["credential": credential], baseURL: Self.base)
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(
            Self.body(request) == #"{"credential":{"id":"AQI","response":{"clientDataJSON":"e30"}},"mode":"passkey"}"#)
        let get = try Self.form(#"{"href":"/webauthn","method":"GET","type":"application/json"}"#)
        #expect(throws: HaapiRequestBuildingError.methodNotAllowedForJSON(method: "GET")) {
            try HaapiRequestBuilder.request(submitting: get, baseURL: Self.base)
        }
    }

    @Test("checkboxes: sent only when checked; read-only ones keep the server's state")
    func checkboxes() throws {
        let form = try Self.form(
            #"{"href":"/c","method":"POST","fields":[{"name":"fixed","type":"checkbox","checked":true,"readonly":true,"value":"openid"},{"name":"opt","type":"checkbox","value":"email"},{"name":"plain","type":"checkbox","checked":true}]}"#
        )
        #expect(
            Self.body(try HaapiRequestBuilder.request(submitting: form, baseURL: Self.base)) == "fixed=openid&plain=on")
        let toggled = try HaapiRequestBuilder.request(
            submitting: form, parameters: ["fixed": false, "opt": true, "plain": false], baseURL: Self.base)
        #expect(Self.body(toggled) == "fixed=openid&opt=email")
    }

    @Test("relative hrefs resolve against the base URL; bad hrefs are errors")
    func hrefResolution() throws {
        #expect(
            try HaapiRequestBuilder.resolve("/a/b?c=d", against: Self.base).absoluteString
                == "https://idp.example.com:8443/a/b?c=d")
        #expect(
            try HaapiRequestBuilder.resolve("rel", against: Self.base).absoluteString
                == "https://idp.example.com:8443/base/rel")
        #expect(
            try HaapiRequestBuilder.resolve("https://x.test/y", against: Self.base).absoluteString == "https://x.test/y"
        )
        #expect(throws: HaapiRequestBuildingError.invalidHref("")) {
            try HaapiRequestBuilder.resolve("", against: Self.base)
        }
        #expect(throws: HaapiRequestBuildingError.invalidHref("http://[bad")) {
            try HaapiRequestBuilder.resolve("http://[bad", against: Self.base)
        }
    }

    @Test("following a link is a GET with the HAAPI accept header")
    func link() throws {
        let step = try decodeStep(
            #"{"type":"authentication-step","links":[{"href":"/authn/forgot","rel":"forgot-password"}]}"#)
        let request = try HaapiRequestBuilder.request(following: try #require(step.links.first), baseURL: Self.base)
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "https://idp.example.com:8443/authn/forgot")
        #expect(request.headers == ["Accept": "application/vnd.auth+json"])
    }
}
