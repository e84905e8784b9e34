import Foundation

/// The kit's own colours and images, by the `hui_*` names the theme uses. An app overrides one by putting
/// an asset of the same name in its asset catalog; what it does not define comes from here, so a theme
/// never renders in a missing colour or without an icon.
public enum ThemeAssets {
    /// The kit's colour for each `hui_*` colour name the built-in theme uses: a UIKit system colour, so the
    /// defaults follow light and dark mode and the user's contrast settings.
    public static let colours: [String: String] = [
        "hui_primary": "systemBlue", "hui_on_primary": "white", "hui_background": "systemBackground",
        "hui_on_background": "label", "hui_on_background_secondary": "secondaryLabel", "hui_outline": "separator",
        "hui_error": "systemRed", "hui_warning": "systemOrange",
    ]

    /// The system colours the defaults above may name (what the Apple adapter maps).
    public static let systemColours: Set<String> = [
        "systemBlue", "white", "systemBackground", "label", "secondaryLabel", "separator", "systemRed", "systemOrange",
    ]

    /// The kit's image for each `hui_*` image name: an SF Symbol on Apple platforms.
    public static let images: [String: String] = [
        "hui_ic_authenticator_user": "person.crop.circle",
        "hui_ic_error": "exclamationmark.octagon",
        "hui_ic_warning": "exclamationmark.triangle",
        "hui_ic_info": "info.circle",
    ]

    /// Where a colour name resolves: the app's catalog when it has the name, else the kit's colour, else
    /// nothing (a name that is neither: the caller's fallback, and a logged warning naming it).
    public enum Resolution<Value: Equatable>: Equatable {
        /// The app's asset catalog has the name.
        case app
        /// The kit's default: a system colour's name, or an SF Symbol's.
        case kit(Value)
        /// Neither: the caller's fallback applies.
        case missing
    }

    /// How `name` resolves, given whether the app's catalog has it.
    public static func colour(_ name: String, appHas: Bool) -> Resolution<String> {
        if appHas { return .app }
        if let colour = colours[name] { return .kit(colour) }
        HaapiLogger.warning(
            UIKitFollowUpTag.theming, "colour \(name) is neither in the app's asset catalog nor one of the kit's")
        return .missing
    }

    /// How an image name resolves, given whether the app's catalog has it.
    public static func image(_ name: String, appHas: Bool) -> Resolution<String> {
        if appHas { return .app }
        if let symbol = images[name] { return .kit(symbol) }
        HaapiLogger.warning(
            UIKitFollowUpTag.theming, "image \(name) is neither in the app's asset catalog nor one of the kit's")
        return .missing
    }
}

/// The fonts a theme names, checked once when the application is built: a font that is not installed is
/// registered from `<name>.ttf` or `<name>.otf` in the app's bundle; one that is neither is logged with the
/// theme key that names it, so a misspelt name is found at launch and not as a silent system font.
public enum ThemeFonts {
    /// What happened to one font name.
    public enum Outcome: Equatable, Sendable {
        /// Installed already (a system font, or registered before).
        case available
        /// Registered from this file of the app's bundle.
        case registered(file: String)
        /// Neither installed nor in the bundle; `keys` are the theme keys that name it.
        case missing(keys: [String])
    }

    /// The built-in theme's font family.
    static let builtInFontName = "Roboto"

    /// Every font name the theme uses, with the keys that name it (`TextAppearance.Title.fontName`, …).
    public static func referencedFonts(in theme: ThemeRegistry) -> [String: [String]] {
        var fonts: [String: [String]] = [:]
        fonts[theme.fontName, default: []].append("fontName")
        for (style, value) in theme.definitions {
            guard case .dictionary(let members) = value, case .string(let name)? = members["fontName"] else { continue }
            fonts[name, default: []].append(style + ".fontName")
        }
        return fonts.mapValues { $0.sorted() }
    }

    /// Makes every font the theme names usable, as far as the bundle allows.
    /// - Parameters:
    ///   - theme: the theme whose fonts are prepared.
    ///   - isInstalled: whether a font of that name can be used now.
    ///   - fileNamed: the URL of a file of the app's bundle (name, extension), if it has one.
    ///   - register: registers a font file for this process; true when the font can then be used.
    public static func prepare(
        _ theme: ThemeRegistry, isInstalled: (String) -> Bool, fileNamed: (String, String) -> URL?,
        register: (URL) -> Bool
    ) -> [String: Outcome] {
        var outcomes: [String: Outcome] = [:]
        for (name, keys) in referencedFonts(in: theme) {
            if isInstalled(name) {
                outcomes[name] = .available
                continue
            }
            let file = fileNamed(name, "ttf") ?? fileNamed(name, "otf")
            if let file, register(file), isInstalled(name) {
                outcomes[name] = .registered(file: file.lastPathComponent)
                continue
            }
            outcomes[name] = .missing(keys: keys)
            // The built-in theme's family is the vendor kit's, which ships its files; ours falls back to the
            // system font without a word unless the app named it.
            guard name != builtInFontName || keys != ["fontName"] else { continue }
            HaapiLogger.error(
                UIKitFollowUpTag.theming,
                "font \(name) (named by \(keys.joined(separator: ", "))) is not installed and the app has no \(name).ttf or \(name).otf; the system font is used"
            )
        }
        return outcomes
    }
}
