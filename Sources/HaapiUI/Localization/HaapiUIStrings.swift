import Foundation

/// The words the UI kit itself shows (buttons, alerts, the waiting text), in the user's language.
///
/// A string comes from, first found: the app's `overrides`; the app's `Localizable.strings` (the seed's way:
/// translate `hui_back` and it is used); the kit's `Localizable.strings` for the locale's language; English.
/// The kit ships English and Swedish as `Resources/<language>.lproj/Localizable.strings`, so the usual
/// localisation tools export and import them. What the server sends (titles, labels, messages) is shown as the server sent it.
public struct HaapiUIStrings: Sendable {
    /// The kit's own words, by the key an app's `Localizable.strings` translates.
    public enum Key: String, CaseIterable, Sendable {
        /// "Back".
        case back = "hui_back"
        /// "Close".
        case close = "hui_close"
        /// "OK".
        case ok = "hui_ok"
        /// "Continue".
        case continueAction = "hui_continue"
        /// The title of the error alert.
        case errorTitle = "hui_error_title"
        /// The title of the alert before closing mid-flow.
        case cancelFlowTitle = "hui_cancel_flow_title"
        /// The button that closes anyway.
        case cancelFlowConfirm = "hui_cancel_flow_confirm"
        /// The button that stays in the flow.
        case keepGoing = "hui_keep_going"
        /// The text shown while polling.
        case waiting = "hui_waiting"
        /// The button that opens another app (BankID).
        case openApp = "hui_open_app"
        /// The message when the other app cannot be opened.
        case openAppFailed = "hui_open_app_failed"
        /// The heading of the authenticator choice.
        case chooseAuthenticator = "hui_choose_authenticator"
    }

    /// The languages the kit has tables for (`Resources/<language>.lproj/Localizable.strings`).
    public static let languages = ["en", "sv"]

    /// The kit's tables by language, read once from its resource bundle.
    static let tables: [String: [String: String]] = KitStringTables.load(languages)

    /// The language whose table is used (a language the kit has, else English).
    public let languageCode: String
    private let overrides: [String: String]
    private let appBundle: Bundle?

    /// - Parameters:
    ///   - locale: whose language to use; the device's by default.
    ///   - overrides: strings by key (`hui_back`, …) that win over every table.
    ///   - appBundle: where to look for the app's `Localizable.strings` (`nil`: nowhere).
    public init(locale: Locale = .current, overrides: [String: String] = [:], appBundle: Bundle? = .main) {
        // From the identifier ("sv_SE", "en-US"): `Locale.language` needs iOS 16, the kit runs on 15.
        let code = String(locale.identifier.prefix { $0 != "_" && $0 != "-" }).lowercased()
        languageCode = Self.tables[code] == nil ? "en" : code
        self.overrides = overrides
        self.appBundle = appBundle
    }

    /// The text for `key` in this language.
    public subscript(_ key: Key) -> String {
        if let override = overrides[key.rawValue] { return override }
        if let appBundle {
            // A sentinel tells "not translated by the app" from a translation that happens to equal the key.
            let sentinel = "\u{0}"
            let translated = appBundle.localizedString(forKey: key.rawValue, value: sentinel, table: nil)
            if translated != sentinel, translated != key.rawValue { return translated }
        }
        return Self.tables[languageCode]?[key.rawValue] ?? Self.tables["en"]?[key.rawValue]
            ?? KitStringTables.englishFallback[key.rawValue] ?? key.rawValue
    }
}
