import Foundation
@_spi(Tooling) import HaapiModel
import Testing

/// `haapi check`'s reading of representations: in the vendor's published bodies only the `launch` action is
/// unknown (the SDK decodes it as a generic step) and no action leaves the server's origin; a made-up part
/// and an action on another host are listed.
@Suite("representation audit")
struct RepresentationAuditTests {
    static let fixtures = Fixtures.directory
    static let server = URL(string: "https://login.example.com") ?? URL(fileURLWithPath: "/")

    @Test(
        "the vendor's fixtures: only the launch action is unknown; every action on the recording server's origin",
        .enabled(if: FileManager.default.fileExists(atPath: fixtures.path)))
    func vendorFixtures() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.fixtures.path).filter {
            $0.hasSuffix(".json")
        }
        #expect(names.count > 10)
        for name in names {
            let data = try Data(contentsOf: Self.fixtures.appendingPathComponent(name))
            // The fixtures were recorded against a tunnel host, which differs from one recording to the next.
            let text = String(decoding: data, as: UTF8.self)
            let host = text.range(of: #"https://[a-z0-9]+\.ngrok\.io"#, options: .regularExpression).map {
                String(text[$0])
            }
            var audit = RepresentationAudit()
            audit.read(data, server: host.flatMap(URL.init(string:)) ?? Self.server)
            let unknown =
                name == "launchExternalBrowser.json"
                ? ["action template \"launch\"", "action kind \"external-browser\""] : []
            #expect(audit.unknown == unknown, "\(name): \(audit.unknown)")
            #expect(audit.offOrigin.isEmpty, "\(name): \(audit.offOrigin)")
        }
    }

    @Test("an unknown field type, action kind and representation type; an action on another host")
    func findsTheUnusual() {
        let body = """
            {"type": "quantum-step", "actions": [{"template": "form", "kind": "teleport", "model": {
              "href": "https://evil.example/authn", "method": "POST",
              "fields": [{"name": "x", "type": "retina"}, {"name": "u", "type": "username"}]}},
              {"template": "form", "kind": "login", "model": {"href": "/authn/next", "method": "POST"}}],
             "links": [{"href": "data:image/png;base64,AAAA", "rel": "logo"},
                       {"href": "https://login.example.com/help", "rel": "help"}]}
            """
        var audit = RepresentationAudit()
        audit.read(Data(body.utf8), server: Self.server)
        #expect(
            audit.unknown == [
                "representation type \"quantum-step\"", "action kind \"teleport\"", "field type \"retina\"",
            ], "\(audit.unknown)")
        #expect(audit.offOrigin == ["https://evil.example/authn"])
    }
}
