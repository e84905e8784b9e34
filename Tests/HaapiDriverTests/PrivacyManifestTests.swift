import Foundation
import Testing

/// Apple requires a reason for each "required-reason" API an app or SDK calls. The client modules' sources are
/// searched for those APIs, and the privacy manifest must declare the category of each one found (and only
/// categories that are used, so it never claims more than it does).
@Suite("Privacy manifest")
struct PrivacyManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let clientModules = ["HaapiModel", "HaapiDriver", "HaapiSdk", "HaapiUI", "Passkeys", "AuthHub"]

    /// Apple's categories, each with the calls that fall in it (from "Describing use of required reason API").
    static let categories: [String: [String]] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp": [
            ".modificationDate", ".creationDate", "contentModificationDate", "creationDateKey", "fstat(", " stat(",
            "lstat(", "getattrlist(",
        ],
        "NSPrivacyAccessedAPICategorySystemBootTime": ["systemUptime", "mach_absolute_time("],
        "NSPrivacyAccessedAPICategoryDiskSpace": [
            "volumeAvailableCapacity", "systemFreeSize", "systemSize", "statfs(", "statvfs(",
        ],
        "NSPrivacyAccessedAPICategoryActiveKeyboards": ["activeInputModes"],
        "NSPrivacyAccessedAPICategoryUserDefaults": ["UserDefaults"],
    ]

    static func sources() throws -> [(path: String, text: String)] {
        var found: [(String, String)] = []
        for module in clientModules {
            let folder = root.appendingPathComponent("Sources/\(module)")
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                found.append(
                    ("\(module)/\(file)", try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)))
            }
        }
        return found
    }

    @Test("every required-reason API the client sources call has its category in the manifest, and no other")
    func manifestMatchesSources() throws {
        let manifest = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/HaapiDriver/PrivacyInfo.xcprivacy"), encoding: .utf8)
        let sources = try Self.sources()
        #expect(sources.count > 100, "the client sources were not found at \(Self.root.path)")
        for (category, calls) in Self.categories {
            let users = sources.filter { source in
                source.text.split(separator: "\n").contains { line in
                    !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") && calls.contains { line.contains($0) }
                }
            }
            let declared = manifest.contains("<string>\(category)</string>")
            #expect(
                declared == !users.isEmpty,
                "\(category): declared \(declared), used in \(users.map(\.path).joined(separator: ", "))")
        }
        #expect(manifest.contains("<string>C617.1</string>"))
    }
}
