import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRawClient
@_spi(Tooling) import Passkeys
import Testing

@testable import HaapiServer

/// The pages and files a browser or a phone's OS fetches: the front page, the passkey web app, its
/// assets, the app-association files, and the passkey settings they depend on.
@Suite("Site pages, passkey settings, associated apps")
struct SitePagesTests {
    @Test("the front page links to the passkey app; both carry the page headers; the app's script and style load")
    func pages() async throws {
        let server = try await TestServer.shared.get()
        let front = try await RawHTTP.send("GET", server.base + "/")
        #expect(front.status == 200 && front.text.contains("href=\"/passkeys\""))
        BrowserPageTests.expectPageHeaders(front, "front page")
        let app = try await RawHTTP.send("GET", server.base + "/passkeys")
        #expect(app.status == 200 && app.text.contains("<script src=\"/assets/passkeys.js\" defer></script>"))
        #expect(app.text.contains("data-rp-id=\"127.0.0.1\"") && app.text.contains("id=\"sign-up\""))
        BrowserPageTests.expectPageHeaders(app, "passkey app")
        #expect(app.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        #expect(front.header("Content-Security-Policy")?.contains("script-src") == false)
        let script = try await RawHTTP.send("GET", server.base + "/assets/passkeys.js")
        #expect(script.status == 200 && script.header("Content-Type")?.hasPrefix("text/javascript") == true)
        #expect(script.text.contains("parseCreationOptionsFromJSON") && script.text.contains("toJSON"))
        #expect(script.header("X-Content-Type-Options") == "nosniff")
        let style = try await RawHTTP.send("GET", server.base + "/assets/site.css")
        #expect(style.status == 200 && style.header("Content-Type")?.hasPrefix("text/css") == true)
    }

    @Test("no associated apps configured: neither association file is served")
    func associationsAbsent() async throws {
        let server = try await TestServer.shared.get()
        #expect(try await RawHTTP.send("GET", server.base + "/.well-known/apple-app-site-association").status == 404)
        #expect(try await RawHTTP.send("GET", server.base + "/.well-known/assetlinks.json").status == 404)
    }

    @Test("apple-app-site-association and assetlinks.json list the configured apps; applinks for https redirects")
    func associations() async throws {
        var configuration = try TestConfiguration.make()
        configuration.associatedApps = AssociatedApps(
            iosAppIds: ["1ABC23DEF4.com.example.shiny"],
            android: [
                .init(
                    packageName: "com.example.shiny",
                    sha256CertFingerprints: [Array(repeating: "ab", count: 32).joined(separator: ":")])
            ])
        // Two clients, each with its own app; a third with no app: its paths are published for nobody.
        configuration.clients.append(
            ClientConfiguration(
                id: "universal", attestation: .software, redirectURIs: ["https://127.0.0.1/app/cb"],
                appIds: ["1ABC23DEF4.com.example.shiny"]))
        configuration.clients.append(
            ClientConfiguration(
                id: "other", attestation: .software, redirectURIs: ["https://127.0.0.1/other/%2A"],
                appIds: ["1ABC23DEF4.com.example.other"]))
        configuration.clients.append(
            ClientConfiguration(id: "appless", attestation: .software, redirectURIs: ["https://127.0.0.1/appless"]))
        let server = try await TestServer(configuration: configuration)
        let apple = try await RawHTTP.send("GET", server.base + "/.well-known/apple-app-site-association")
        #expect(apple.status == 200 && apple.contentType == "application/json")
        #expect(apple.json["webcredentials"]?["apps"]?[0]?.stringValue == "1ABC23DEF4.com.example.shiny")
        let details = apple.json["applinks"]?["details"]?.arrayValue ?? []
        #expect(details.count == 2, "\(details)")
        #expect(details.first?["appIDs"]?.arrayValue == ["1ABC23DEF4.com.example.shiny"])
        #expect(details.first?["components"]?.arrayValue == [["/": "/app/cb"]])
        // The encoded %2A stays encoded: not a wildcard that would give the other app every path below.
        #expect(details.last?["appIDs"]?.arrayValue == ["1ABC23DEF4.com.example.other"])
        #expect(details.last?["components"]?.arrayValue == [["/": "/other/%2A"]])
        #expect(!apple.text.contains("/appless"))
        let android = try await RawHTTP.send("GET", server.base + "/.well-known/assetlinks.json")
        #expect(android.status == 200 && android.contentType == "application/json")
        #expect(android.json[0]?["target"]?["package_name"]?.stringValue == "com.example.shiny")
        #expect(android.json[0]?["target"]?["sha256_cert_fingerprints"]?[0]?.stringValue?.hasPrefix("AB:AB") == true)
        #expect(android.json[0]?["relation"]?.arrayValue?.count == 2)
        await server.stop()
    }

    @Test("bad passkey and associated-app settings are refused with what to fix")
    func settingsValidation() throws {
        func refused(_ change: (inout ServerConfiguration) -> Void) throws -> String {
            var configuration = try TestConfiguration.make()
            change(&configuration)
            do {
                try configuration.validate()
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(try refused { $0.passkeys.rpId = "https://localhost" }.contains("passkeys.rpId"))
        #expect(try refused { $0.passkeys.rpId = "Example.com" }.contains("lower-case"))
        #expect(try refused { $0.passkeys.origins = ["localhost:8080"] }.contains("passkeys.origins"))
        #expect(
            try refused {
                $0.passkeys = PasskeySettings(rpId: "example.com", origins: ["https://evil.example"])
            }.contains("not on the RP ID"))
        #expect(try refused { $0.passkeys.authenticatorAttachment = "usb" }.contains("authenticatorAttachment"))
        #expect(
            try refused { $0.associatedApps = AssociatedApps(iosAppIds: ["com.example.app"]) }.contains("Team ID"))
        #expect(
            try refused {
                $0.associatedApps = AssociatedApps(android: [.init(packageName: "a.b", sha256CertFingerprints: ["AB"])])
            }.contains("32 hex bytes"))
        #expect(
            try refused {
                $0.passkeys = PasskeySettings(
                    rpId: "example.com", origins: ["https://login.example.com", "https://example.com/"],
                    authenticatorAttachment: "cross-platform")
            } == "accepted")
        // Redirect URIs that would run or read in the browser, carry a fragment, or publish a wildcard.
        for (uri, words) in [
            ("javascript:alert(1)", "javascript: scheme"), ("JavaScript:alert(1)", "javascript: scheme"),
            ("data:text/html,hi", "data: scheme"), ("vbscript:msgbox", "vbscript: scheme"),
            ("file:///etc/passwd", "file: scheme"), ("app://cb#frag", "fragment"), ("relative/cb", "not absolute"),
            ("https://127.0.0.1/a/*", "wildcard"),
        ] {
            let message = try refused {
                $0.clients.append(ClientConfiguration(id: "bad", redirectURIs: [uri]))
            }
            #expect(message.contains(words), "\(uri): \(message)")
        }
        #expect(
            try refused { $0.clients.append(ClientConfiguration(id: "c", redirectURIs: ["https://127.0.0.1/a/%2A"])) }
                == "accepted")
        #expect(
            try refused { $0.clients.append(ClientConfiguration(id: "c", appIds: ["shiny"])) }.contains("appIds"))
        let parsed = try ServerConfiguration.load(
            json: Data(
                #"{"clients":[],"authenticators":[{"id":"p","type":"passkeys","title":"P"}],"passkeys":{"rpId":"localhost","authenticatorAttachment":"platform"}}"#
                    .utf8))
        #expect(parsed.passkeys.rpId == "localhost" && parsed.passkeys.authenticatorAttachment == "platform")
    }

    @Test(
        "passkey options: no attachment forced by default, the configured one otherwise; rpId and origins configurable")
    func passkeyOptions() async throws {
        let shared = try await TestServer.shared.get()
        let plain = try await RawHTTP.send("GET", shared.base + "/registration_initialize?user_name=nobody-yet")
        #expect(plain.json["publicKey"]?["authenticatorSelection"]?["authenticatorAttachment"] == nil)
        #expect(plain.json["publicKey"]?["rp"]?["id"]?.stringValue == "127.0.0.1")

        var configuration = try TestConfiguration.make()
        configuration.passkeys = PasskeySettings(
            rpId: "localhost", origins: ["http://localhost:1234"], authenticatorAttachment: "platform")
        let server = try await TestServer(configuration: configuration)
        let options = try await RawHTTP.send("GET", server.base + "/registration_initialize?user_name=someone")
        let publicKey = options.json["publicKey"]
        #expect(publicKey?["authenticatorSelection"]?["authenticatorAttachment"]?.stringValue == "platform")
        #expect(publicKey?["rp"]?["id"]?.stringValue == "localhost")

        // A credential made for the configured origin is accepted; the server's own origin no longer is.
        let authenticator = SoftwareAuthenticator(storage: InMemoryStorage())
        let creation = try PublicKeyCredentialCreationOptions(json: options.json)
        let fromOtherOrigin = try await authenticator.register(creation, origin: "http://localhost:9999")
        let refused = try await RawHTTP.send(
            "POST", server.base + "/registration_finalize", headers: [("Content-Type", "application/json")],
            body: Data(fromOtherOrigin.json.serialized().utf8))
        #expect(refused.status == 400)
        let again = try await RawHTTP.send("GET", server.base + "/registration_initialize?user_name=someone")
        let credential = try await authenticator.register(
            try PublicKeyCredentialCreationOptions(json: again.json), origin: "http://localhost:1234")
        let accepted = try await RawHTTP.send(
            "POST", server.base + "/registration_finalize", headers: [("Content-Type", "application/json")],
            body: Data(credential.json.serialized().utf8))
        #expect(accepted.status == 200, "\(accepted.text)")
        await server.stop()
    }

    @Test("sign-out ends the RP session: its token can no longer add a passkey")
    func logout() async throws {
        let server = try await TestServer.shared.get()
        let authenticator = SoftwareAuthenticator(storage: InMemoryStorage())
        let origin = server.base
        let name = "logout-\(UUID().uuidString.prefix(8))"
        let options = try await RawHTTP.send("GET", server.base + "/registration_initialize?user_name=\(name)")
        let created = try await authenticator.register(
            try PublicKeyCredentialCreationOptions(json: options.json), origin: origin)
        let registered = try await RawHTTP.send(
            "POST", server.base + "/registration_finalize", headers: [("Content-Type", "application/json")],
            body: Data(created.json.serialized().utf8))
        #expect(registered.status == 200)
        let request = try await RawHTTP.send("GET", server.base + "/authentication_initialize")
        let assertion = try await authenticator.authenticate(
            try PublicKeyCredentialRequestOptions(json: request.json), origin: origin)
        let signedIn = try await RawHTTP.send(
            "POST", server.base + "/authentication_finalize", headers: [("Content-Type", "application/json")],
            body: Data(assertion.json.serialized().utf8))
        let session = try #require(signedIn.json["session"]?.stringValue)
        let bearer = [("Authorization", "Bearer \(session)")]
        #expect(try await RawHTTP.send("GET", server.base + "/registration_initialize", headers: bearer).status == 200)
        #expect(try await RawHTTP.send("POST", server.base + "/logout").status == 401)
        #expect(try await RawHTTP.send("POST", server.base + "/logout", headers: bearer).status == 204)
        #expect(try await RawHTTP.send("GET", server.base + "/registration_initialize", headers: bearer).status == 401)
    }
}

/// Pages are built from `HTML`, which escapes what is interpolated unless it is markup itself (issue 51 item 9).
@Suite("HTML escapes by default")
struct HTMLTests {
    @Test("interpolated text is escaped, markup and numbers go in as they are")
    func escapesByDefault() {
        let name = #"<script>alert("x")</script> & 'y'"#
        let cell: HTML = "<td>\(name)</td>"
        #expect(cell.markup == "<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;</td>")
        let row: HTML = "<tr>\(cell)<td>\(42)</td></tr>"
        #expect(row.markup == "<tr>" + cell.markup + "<td>42</td></tr>")
        let list: HTML = "<ul>\([HTML("<li>a</li>"), HTML(text: "<b>")])</ul>"
        #expect(list.markup == "<ul><li>a</li>\n&lt;b&gt;</ul>")
        #expect(HTML(joining: [cell, cell], separator: "|").markup == cell.markup + "|" + cell.markup)
    }

    @Test("a message page escapes its heading, text and link")
    func messagePage() {
        let page = HTMLPage.message(
            title: "<t>", heading: "<h>", text: "a & b", next: ("go\"", "/x?a=1&b=\"2\""), status: .ok, basePath: "")
        #expect(page.document.contains("<title>&lt;t&gt;</title>") && page.document.contains("<h1>&lt;h&gt;</h1>"))
        #expect(page.document.contains(#"href="/x?a=1&amp;b=&quot;2&quot;">go&quot;</a>"#))
    }
}
