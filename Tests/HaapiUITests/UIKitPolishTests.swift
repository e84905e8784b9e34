import Foundation
import Testing

@testable import HaapiUI

/// Issue 32, item 8: the UI kit's words as `.lproj` resources, its default colours and images under the
/// `hui_*` names, theme fonts registered from the app's bundle (a misspelt one reported with its key), and
/// one interruption guard for every way out of the flow.
@Suite("UI kit: resources, assets, fonts, leaving the flow")
struct UIKitPolishTests {
    @Test("the kit's words are Resources/<lang>.lproj/Localizable.strings, every key in English and Swedish")
    func stringResources() throws {
        let tables = KitStringTables.load(HaapiUIStrings.languages)
        for language in HaapiUIStrings.languages {
            let table = try #require(tables[language], "no \(language).lproj/Localizable.strings in the bundle")
            for key in HaapiUIStrings.Key.allCases {
                #expect(table[key.rawValue]?.isEmpty == false, "\(language) has no \(key.rawValue)")
            }
            #expect(Set(table.keys) == Set(HaapiUIStrings.Key.allCases.map(\.rawValue)), "\(language): unknown keys")
        }
        // The English a binary without its resource bundle falls back to is the English file's.
        #expect(tables["en"] == KitStringTables.englishFallback)
        #expect(HaapiUIStrings(locale: Locale(identifier: "sv_SE"), appBundle: nil)[.back] == "Tillbaka")
        #expect(HaapiUIStrings(locale: Locale(identifier: "de_DE"), appBundle: nil)[.back] == "Back")
        #expect(
            HaapiUIStrings(locale: Locale(identifier: "sv"), overrides: ["hui_back": "Åter"], appBundle: nil)[.back]
                == "Åter")
        // No resource bundle: nothing loaded, and nothing crashes.
        #expect(KitStringTables.load(["en"], from: nil).isEmpty)
        #expect(
            KitStringTables.load(["en"], from: FileManager.default.temporaryDirectory.appendingPathComponent("none"))
                .isEmpty)
    }

    @Test("every hui_* colour and image the built-in theme names has a kit default; the app's catalog wins")
    func assets() {
        let theme = ThemeRegistry(overrides: nil)
        var names: Set<String> = []
        func collect(_ value: StyleValue) {
            switch value {
            case .string(let text) where text.hasPrefix("hui_"): names.insert(text)
            case .dictionary(let members): members.values.forEach(collect)
            default: break
            }
        }
        theme.definitions.values.forEach(collect)
        #expect(!names.isEmpty)
        for name in names {
            let isImage = name.hasPrefix("hui_ic_")
            if isImage {
                #expect(ThemeAssets.images[name] != nil, "no kit image for \(name)")
            } else {
                #expect(
                    ThemeAssets.colours[name].map(ThemeAssets.systemColours.contains) == true,
                    "no kit colour for \(name)")
            }
        }
        #expect(ThemeAssets.colour("hui_primary", appHas: true) == .app)
        #expect(ThemeAssets.colour("hui_primary", appHas: false) == .kit("systemBlue"))
        #expect(ThemeAssets.colour("brand_pink", appHas: false) == .missing)
        #expect(ThemeAssets.image("hui_ic_error", appHas: false) == .kit("exclamationmark.octagon"))
        #expect(ThemeAssets.image("hui_ic_error", appHas: true) == .app)
    }

    @Test(
        "theme fonts: installed ones are left alone, bundled TTF/OTF files registered, misspelt ones reported with their keys"
    )
    func fonts() throws {
        let theme = ThemeRegistry(
            overrides: ThemingTests.plist(
                """
                <key>fontName</key><string>Brand Sans</string>
                <key>TextAppearance.Title</key><dict><key>fontName</key><string>Brand Serif</string></dict>
                <key>TextAppearance.Caption</key><dict><key>fontName</key><string>Brand Srif</string></dict>
                <key>TextAppearance.Mono</key><dict><key>fontName</key><string>Menlo</string></dict>
                """))
        let referenced = ThemeFonts.referencedFonts(in: theme)
        #expect(referenced["Brand Serif"] == ["TextAppearance.Title.fontName"])
        #expect(referenced["Brand Sans"]?.contains("fontName") == true)
        // The bundle's files and the families they hold, as Core Text would report them once registered.
        let familyOfFile = [
            "BrandSans-Regular.otf": "Brand Sans", "BrandSans-Bold.otf": "Brand Sans", "BrandSerif.ttf": "Brand Serif",
            "IBMPlexMono-Regular.ttf": "IBM Plex Mono", "Notes.txt": "",
        ]
        var families: Set<String> = ["Menlo", "Helvetica"]
        var registered: [String] = []
        let environment = ThemeFonts.Environment(
            families: { families },
            bundleFontFiles: { familyOfFile.keys.sorted().map { URL(fileURLWithPath: "/app/" + $0) } },
            register: { url in
                guard let family = familyOfFile[url.lastPathComponent], !registered.contains(url.lastPathComponent)
                else { return false }
                registered.append(url.lastPathComponent)
                families.insert(family)
                return true
            })
        var messages: [String] = []
        let outcomes = ThemeFonts.prepare(theme, in: environment) { messages.append($1) }
        #expect(outcomes["Menlo"] == .available)
        #expect(outcomes["Brand Sans"] == .registered(files: ["BrandSans-Bold.otf", "BrandSans-Regular.otf"]))
        #expect(outcomes["Brand Serif"] == .registered(files: ["BrandSerif.ttf"]))
        #expect(outcomes["Brand Srif"] == .missing(keys: ["TextAppearance.Caption.fontName"]))
        #expect(!registered.contains("Notes.txt") && !registered.contains("IBMPlexMono-Regular.ttf"))
        #expect(messages.contains("2 font families are registered before the theme's"), "\(messages)")
        #expect(messages.contains("4 font families are registered now"))
        #expect(messages.contains("font families added: Brand Sans, Brand Serif"))
        // Prepared again (a second application build): nothing is registered twice.
        registered = []
        families.formUnion(["Brand Sans", "Brand Serif"])
        _ = ThemeFonts.prepare(theme, in: environment) { _, _ in }
        #expect(registered.isEmpty)
    }

    @Test(
        "a fontName written as its files spell it (IBMPlexMono) is a warning naming IBM Plex Mono; Roboto says the system font stands in"
    )
    func fontNameSpelling() {
        let theme = ThemeRegistry(overrides: ThemingTests.plist("<key>fontName</key><string>IBMPlexMono</string>"))
        var families: Set<String> = []
        let environment = ThemeFonts.Environment(
            families: { families },
            bundleFontFiles: { [URL(fileURLWithPath: "/app/IBMPlexMono-Regular.ttf")] },
            register: { _ in
                families.insert("IBM Plex Mono")
                return true
            })
        var messages: [String] = []
        let outcomes = ThemeFonts.prepare(theme, in: environment) { messages.append($1) }
        #expect(outcomes["IBMPlexMono"] == .misnamed(suggestion: "IBM Plex Mono"))
        #expect(messages.contains("The configured fontName is `IBMPlexMono`. Isn't it `IBM Plex Mono`?"), "\(messages)")

        var robotoLines: [(LogType, String)] = []
        let roboto = ThemeFonts.prepare(
            ThemeRegistry(overrides: nil),
            in: ThemeFonts.Environment(families: { [] }, bundleFontFiles: { [] }, register: { _ in false })
        ) { robotoLines.append(($0, $1)) }
        #expect(roboto["Roboto"] == .missing(keys: ["fontName"]))
        #expect(
            robotoLines.contains { $0.0 == .info && $0.1.hasPrefix("Roboto, the default fontName, is not shipped") })
    }

    @Test("leaving the flow: stack shows back next to close; every way out asks when configured, none after the end")
    func interruption() throws {
        func configuration(_ mode: PresentationMode, confirm: Bool) -> HaapiUIKitConfiguration {
            let base = URL(string: "https://login.example")!
            return HaapiUIKitConfigurationBuilder(
                clientId: "c", baseUrl: base, tokenEndpointUrl: base.appendingPathComponent("oauth/token"),
                authorizationEndpointUrl: base.appendingPathComponent("oauth/authorize"), appRedirect: "app://c"
            )
            .setPresentationMode(mode).setShouldConfirmFlowInterruption(confirm).build()
        }
        let stack = FlowInterruptionGuard(configuration: configuration(.stack, confirm: true))
        #expect(stack.leadingButtons == [.back, .close])
        #expect(FlowInterruptionGuard(configuration: configuration(.modal, confirm: true)).leadingButtons == [.close])
        for exit in FlowExit.allCases {
            #expect(stack.asksBeforeLeaving(by: exit, flowEnded: false), "\(exit) leaves without asking")
            #expect(!stack.asksBeforeLeaving(by: exit, flowEnded: true))
        }
        #expect(!stack.allowsSystemSwipe)
        let quiet = FlowInterruptionGuard(configuration: configuration(.stack, confirm: false))
        #expect(FlowExit.allCases.allSatisfy { !quiet.asksBeforeLeaving(by: $0, flowEnded: false) })
        #expect(quiet.allowsSystemSwipe)
        #expect(stack.confirmation.keepGoing == stack.strings[.keepGoing])
    }
}
