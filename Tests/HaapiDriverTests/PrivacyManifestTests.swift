import Foundation
import Testing

@testable import HaapiDriver

@Suite("Privacy manifest")
struct PrivacyManifestTests {
    @Test("PrivacyInfo.xcprivacy ships as a resource of the client products and is a valid manifest")
    func manifest() throws {
        let url = try #require(Bundle.module.url(forResource: "PrivacyInfo", withExtension: "xcprivacy"))
        let plist = try #require(
            try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        #expect((plist["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
        #expect(plist["NSPrivacyCollectedDataTypes"] is [Any] && plist["NSPrivacyAccessedAPITypes"] is [Any])
    }
}
