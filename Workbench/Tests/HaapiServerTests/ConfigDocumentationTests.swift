import Foundation
import Testing

@testable import HaapiServer

/// docs/CONFIG.md names every key the configuration file can hold: a key added to a settings type without a
/// row in that page fails here.
@Suite("docs/CONFIG.md covers the configuration")
struct ConfigDocumentationTests {
    static let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/CONFIG.md")

    /// The stored properties of a value: with synthesized coding keys, the keys of its JSON object.
    static func keys(of value: Any) -> [String] {
        Mirror(reflecting: value).children.compactMap(\.label)
    }

    @Test("every key of every settings object has a row (`key` in backquotes) in docs/CONFIG.md")
    func everyKeyDocumented() throws {
        let text = try String(contentsOf: Self.page, encoding: .utf8)
        let samples: [(String, Any)] = [
            ("top level", try ServerConfiguration.embeddedDefault),
            ("clients[]", ClientConfiguration(id: "c")),
            ("dcrTemplate", ClientConfiguration.DCRTemplate(authenticateClientBy: "c")),
            ("users[]", UserConfiguration(username: "u", password: "p")),
            ("lifetimes", ServerConfiguration.Lifetimes()),
            ("dpop", ServerConfiguration.DPoPSettings()),
            ("security", ServerConfiguration.SecuritySettings()),
            ("passkeys", PasskeySettings()),
            ("authHub", AuthHubSettings(tenants: [])),
            ("authHub.tenants[]", AuthHubSettings.Tenant(name: "t")),
            ("associatedApps", AssociatedApps()),
            ("associatedApps.android[]", AssociatedApps.AndroidApp(packageName: "p", sha256CertFingerprints: [])),
            ("appAttest", AppAttestSettings(appIDs: [])),
        ]
        // Types whose coding keys are not their stored properties: the keys the file holds.
        let written: [(String, [String])] = [
            ("authenticators[]", AuthenticatorConfiguration.CodingKeys.allCases.map(\.stringValue)),
            ("authenticators[].steps[]", FormStepConfiguration.CodingKeys.allCases.map(\.stringValue)),
            ("authenticators[].steps[].fields[]", FormFieldConfiguration.CodingKeys.allCases.map(\.stringValue)),
        ]
        var missing: [String] = []
        for (place, keys) in samples.map({ ($0.0, Self.keys(of: $0.1)) }) + written {
            for key in keys where !text.contains("`\(key)`") && !text.contains(".\(key)`") {
                missing.append("\(place).\(key)")
            }
        }
        #expect(missing.isEmpty, "not in docs/CONFIG.md: \(missing)")
        #expect(Self.keys(of: ClientConfiguration(id: "c")).contains("appIds"), "the mirror reads stored properties")
    }
}
