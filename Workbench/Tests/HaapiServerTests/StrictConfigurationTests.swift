import Foundation
@_spi(Tooling) import HaapiModel
import Testing

@testable import HaapiServer

/// The configuration is read once, by our own parser, and strictly (issue 49 item 5): unknown keys, comments,
/// trailing commas and wrong types are errors that say where and what was meant.
@Suite("Strict configuration: one read, unknown keys, syntax by line and column, types by path")
struct StrictConfigurationTests {
    static func error(_ json: String) -> String? {
        do {
            _ = try ServerConfiguration.load(json: Data(json.utf8))
            return nil
        } catch let error as ConfigurationError {
            return error.detail
        } catch {
            return "not a ConfigurationError: \(error)"
        }
    }

    static let minimal = #"{"clients":[],"users":[{"username":"u","password":"p"}],"authenticators":[AUTH]}"#

    static func with(_ authenticator: String) -> String {
        minimal.replacingOccurrences(of: "AUTH", with: authenticator)
    }

    @Test(
        "an unknown key is an error at its place, with the key it may have meant",
        arguments: [
            (
                #"{"id":"f","type":"form","title":"F","user":"u","steps":[{"title":"T","fields":[{"name":"otp","type":"text","acept":"[0-9]{6}"}]}]}"#,
                #"authenticators[0].steps[0].fields[0].acept: unknown key "acept"; did you mean "accept"?"#
            ),
            (
                #"{"id":"p","type":"polling","title":"P","user":"u","next":"sms"}"#,
                #"authenticators[0].next: unknown key "next""#
            ),
            (
                #"{"id":"p","type":"polling","title":"P","user":"u","pollsUntildone":3}"#,
                #"authenticators[0].pollsUntildone: unknown key "pollsUntildone"; did you mean "pollsUntilDone"?"#
            ),
        ])
    func unknownKey(authenticator: String, expected: String) throws {
        let detail = try #require(Self.error(Self.with(authenticator)))
        #expect(detail.hasPrefix(expected), "\(detail)")
    }

    @Test("unknown keys anywhere: the top level, a client, a login, lifetimes")
    func unknownKeysEverywhere() throws {
        let authenticator = #"{"id":"password","type":"username-password","title":"P"}"#
        for (json, place) in [
            (
                Self.with(authenticator).replacingOccurrences(of: #""clients":[]"#, with: #""client":[],"clients":[]"#),
                "client: unknown key"
            ),
            (
                Self.with(authenticator).replacingOccurrences(
                    of: #""clients":[]"#, with: #""clients":[{"id":"c","redirectURI":["app://x"]}]"#),
                #"clients[0].redirectURI: unknown key "redirectURI"; did you mean "redirectURIs"?"#
            ),
            (
                String(Self.with(authenticator).dropLast())
                    + #","logins":[{"id":"l","steps":["password"],"step":[]}]}"#,
                "logins[0].step: unknown key"
            ),
            (
                String(Self.with(authenticator).dropLast()) + #","lifetimes":{"acessToken":60}}"#,
                #"lifetimes.acessToken: unknown key "acessToken"; did you mean "accessToken"?"#
            ),
        ] {
            let detail = try #require(Self.error(json), "accepted: \(json)")
            #expect(detail.hasPrefix(place), "\(detail)")
        }
    }

    @Test("comments and trailing commas are refused; a syntax error says its line and column")
    func syntax() throws {
        let trailing = """
            {
              "clients": [],
              "users": [],
              "authenticators": [
                { "id": "password", "type": "username-password", "title": "P" },
              ]
            }
            """
        let comma = try #require(Self.error(trailing))
        #expect(comma.hasPrefix("not valid JSON at line 6, column 3"), "\(comma)")
        let comment = try #require(Self.error("{\n  // clients\n  \"clients\": []\n}"))
        #expect(comment.hasPrefix("not valid JSON at line 2, column 3"), "\(comment)")
        let unclosed = try #require(Self.error("{\"clients\": [\n\n"))
        #expect(unclosed.contains("line 3, column 1") && unclosed.contains("end of input"), "\(unclosed)")
        // Columns count characters, not bytes.
        let wide = try #require(Self.error("{\"clients\": [], \"users\": [{\"name\": \"Åsa Öberg\" x}]}"))
        #expect(wide.contains("line 1, column 48"), "\(wide)")  // 50 in bytes
        let twice = try #require(Self.error(#"{"clients":[],"clients":[]}"#))
        #expect(twice.contains("duplicate member \"clients\""), "\(twice)")
    }

    @Test("a wrong type names the path and the type expected")
    func wrongType() throws {
        for (authenticator, expected) in [
            (
                #"{"id":"p","type":"polling","title":"P","user":"u","pollsUntilDone":"3"}"#,
                #"authenticators[0].pollsUntilDone: expected a whole number, got the string "3""#
            ),
            (
                #"{"id":"p","type":"polling","title":"P","user":"u","pollsUntilDone":2.5}"#,
                "authenticators[0].pollsUntilDone: expected a whole number from"
            ),
            (#"{"id":7,"type":"polling","title":"P"}"#, "authenticators[0].id: expected a string, got the number 7"),
            (#"["password"]"#, "authenticators[0]: expected an object, got an array"),
        ] {
            let detail = try #require(Self.error(Self.with(authenticator)))
            #expect(detail.hasPrefix(expected), "\(detail)")
        }
        let lifetimes = try #require(
            Self.error(
                String(Self.with(#"{"id":"p","type":"passkeys","title":"P"}"#).dropLast())
                    + #","lifetimes":{"flow":true}}"#))
        #expect(lifetimes.hasPrefix("lifetimes.flow: expected a whole number, got the boolean true"), "\(lifetimes)")
    }

    @Test("recorded steps keep the file's member order and number literals; an encoded configuration loads again")
    func exactValuesAndRoundTrip() throws {
        let json = Self.with(
            #"{"id":"r","type":"recorded","title":"R","user":"u","steps":[{"type":"authentication-step","z":1.50,"a":[1e3,-0]}]}"#
        )
        let configuration = try ServerConfiguration.load(json: Data(json.utf8))
        let step = try #require(configuration.authenticators.first?.recordedSteps.first)
        #expect(step.serialized() == #"{"type":"authentication-step","z":1.50,"a":[1e3,-0]}"#)
        for original in [try ServerConfiguration.embeddedDefault, configuration] {
            let again = try ServerConfiguration.load(json: JSONEncoder().encode(original))
            #expect(again.clients == original.clients && again.logins == original.logins)
            #expect(again.authenticators.map(\.id) == original.authenticators.map(\.id))
        }
    }
}
