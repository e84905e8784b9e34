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

/// The fonts a theme names, made usable once when the application is built. A `fontName` is a family name
/// ("IBM Plex Mono"): when no such family is installed, every font file of the app's bundle whose name starts
/// with the family's name without spaces (`IBMPlexMono-Regular.ttf`, `IBMPlexMono-Bold.otf`) is registered.
/// The counts of families before and after, and the families added, are logged (`HAAPI_UI_THEMING`); a name
/// that matches no family but is one without its spaces (`IBMPlexMono`) is a warning that names the family
/// meant, and a name that matches nothing is an error naming the theme keys that use it. The system font
/// stands in for a missing one. The kit does not ship Roboto, the default `fontName`: unless the app bundles
/// it, the system font replaces it, and one line says so.
public enum ThemeFonts {
    /// What happened to one font name.
    public enum Outcome: Equatable, Sendable {
        /// Installed already (a system font, or registered before).
        case available
        /// Registered from these files of the app's bundle.
        case registered(files: [String])
        /// No family of this name, but `suggestion` is the same name with its spaces: the one meant.
        case misnamed(suggestion: String)
        /// Neither installed nor in the bundle; `keys` are the theme keys that name it.
        case missing(keys: [String])
    }

    /// What the platform offers the font check (UIKit and Core Text on iOS; anything in tests).
    public struct Environment {
        /// The font families usable now.
        public var families: () -> Set<String>
        /// The font files (`.ttf`, `.otf`) in the app's bundle.
        public var bundleFontFiles: () -> [URL]
        /// Registers a font file for this process; true when it was registered.
        public var register: (URL) -> Bool

        /// An environment from its three parts.
        public init(
            families: @escaping () -> Set<String>, bundleFontFiles: @escaping () -> [URL],
            register: @escaping (URL) -> Bool
        ) {
            self.families = families
            self.bundleFontFiles = bundleFontFiles
            self.register = register
        }
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

    /// A family's name as font files spell it: without spaces, compared without case.
    static func squashed(_ name: String) -> String {
        name.filter { !$0.isWhitespace }.lowercased()
    }

    /// Writes one line of the font check (`HAAPI_UI_THEMING` in `HaapiLogger`).
    public static func themingLog(_ type: LogType, _ text: String) {
        HaapiLogger.log(type, UIKitFollowUpTag.theming, "\(text)")
    }

    /// Makes every font the theme names usable, as far as the bundle allows, and says what it did through
    /// `log` (the kit's log by default).
    public static func prepare(
        _ theme: ThemeRegistry, in environment: Environment, log: (LogType, String) -> Void = themingLog
    ) -> [String: Outcome] {
        let before = environment.families()
        log(.info, "\(before.count) font families are registered before the theme's")
        let files = environment.bundleFontFiles().filter { ["ttf", "otf"].contains($0.pathExtension.lowercased()) }
        var outcomes: [String: Outcome] = [:]
        for (name, keys) in referencedFonts(in: theme).sorted(by: { $0.key < $1.key }) {
            if environment.families().contains(name) {
                outcomes[name] = .available
                continue
            }
            let prefix = squashed(name)
            let registered = files.filter { squashed($0.lastPathComponent).hasPrefix(prefix) }
                .filter { environment.register($0) }.map(\.lastPathComponent).sorted()
            let now = environment.families()
            if now.contains(name) {
                outcomes[name] = .registered(files: registered)
            } else if let meant = now.sorted().first(where: { squashed($0) == prefix }) {
                outcomes[name] = .misnamed(suggestion: meant)
                log(.warning, "The configured fontName is `\(name)`. Isn't it `\(meant)`?")
            } else {
                outcomes[name] = .missing(keys: keys)
                if name == builtInFontName, keys == ["fontName"] {
                    log(
                        .info,
                        "Roboto, the default fontName, is not shipped with the kit and not in the app's bundle: the system font replaces it"
                    )
                } else {
                    log(
                        .error,
                        "font \(name) (named by \(keys.joined(separator: ", "))) is not installed and no font file of the app starts with \(name.filter { !$0.isWhitespace }); the system font is used"
                    )
                }
            }
        }
        let after = environment.families()
        log(.info, "\(after.count) font families are registered now")
        let added = after.subtracting(before).sorted()
        if !added.isEmpty {
            log(.info, "font families added: \(added.joined(separator: ", "))")
        }
        return outcomes
    }
}
