import Foundation

/// Reads the kit's `Localizable.strings` tables from its resource bundle.
enum KitStringTables {
    /// The resource bundle SwiftPM builds for HaapiUI.
    static let bundleName = "swift-haapi_HaapiUI"

    /// English, for a binary copied without its resource bundle (a Linux `haapi` on its own): the kit still
    /// speaks, rather than showing keys. A test keeps it equal to `en.lproj`.
    static let englishFallback: [String: String] = [
        "hui_back": "Back", "hui_close": "Close", "hui_ok": "OK", "hui_continue": "Continue",
        "hui_error_title": "Sign-in failed", "hui_cancel_flow_title": "Cancel sign-in?",
        "hui_cancel_flow_confirm": "Cancel sign-in", "hui_keep_going": "Keep signing in", "hui_waiting": "Waiting…",
        "hui_open_app": "Open the app", "hui_open_app_failed": "The app could not be opened. Is it installed?",
        "hui_choose_authenticator": "Choose how to sign in",
    ]

    /// The folder of the resource bundle: SwiftPM's `Bundle.module` on Apple platforms; elsewhere the
    /// `.resources` folder next to the executable, looked up without SwiftPM's accessor, which stops the
    /// process when the folder is missing.
    static var bundleURL: URL? {
        #if canImport(Darwin)
        return Bundle.module.bundleURL
        #else
        let candidate = Bundle.main.bundleURL.appendingPathComponent(bundleName + ".resources", isDirectory: true)
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
        #endif
    }

    /// `<language>.lproj/Localizable.strings` of each language that has one.
    static func load(_ languages: [String], from base: URL? = bundleURL) -> [String: [String: String]] {
        guard let base else {
            HaapiLogger.warning(
                UIKitFollowUpTag.component, "the UI kit's resource bundle is not installed; its words are English")
            return [:]
        }
        var tables: [String: [String: String]] = [:]
        for language in languages {
            let url = base.appendingPathComponent(language + ".lproj/Localizable.strings")
            guard let data = try? Data(contentsOf: url),
                let table = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: String]
            else { continue }
            tables[language] = table
        }
        return tables
    }
}
