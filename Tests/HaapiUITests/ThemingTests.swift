import Foundation
import HaapiUI
import Testing

@Suite("Theming")
struct ThemingTests {
    static func plist(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict>\(body)</dict></plist>
            """.utf8)
    }

    @Test("the built-in theme: Roboto, body 17, buttons use TextAppearance.Body")
    func defaults() {
        let theme = ThemeRegistry(overrides: nil)
        #expect(theme.problems.isEmpty)
        #expect(theme.fontName == "Roboto")
        #expect(theme.number("UICTFontTextStyleBody") == 17)
        let appearance = theme.textAppearance(of: "ActionableButton.Primary")
        #expect(
            appearance
                == TextAppearance(
                    fontName: "Roboto", fontSize: 17, symbolicTrait: "none", alignment: "natural",
                    colorName: "hui_on_background"))
        #expect(theme.string("textColorName", in: "ActionableButton.Primary") == "hui_on_primary")
        #expect(theme.bool("underlined", in: "ActionableButton.Link") == true)
    }

    @Test("overrides replace only the keys they name: a text-style size, fontName, one member of a style")
    func overrides() {
        let theme = ThemeRegistry(
            overrides: Self.plist(
                """
                <key>fontName</key><string>IBM Plex Mono</string>
                <key>UICTFontTextStyleBody</key><real>15</real>
                <key>ActionableButton.Primary</key><dict><key>textColorName</key><string>pastel_color</string></dict>
                """))
        #expect(theme.problems.isEmpty)
        #expect(theme.fontName == "IBM Plex Mono")
        #expect(theme.textAppearance(of: "ActionableButton.Primary").fontSize == 15)
        #expect(theme.textAppearance(of: "ActionableButton.Primary").fontName == "IBM Plex Mono")
        #expect(theme.string("textColorName", in: "ActionableButton.Primary") == "pastel_color")
        // Untouched members keep the built-in values.
        #expect(theme.number("cornerRadius", in: "ActionableButton.Primary") == 8)
        #expect(theme.textAppearance(of: "MessageView.Error").fontSize == 15)
    }

    @Test("a style can point at the app's own TextAppearance.*; what it leaves out comes from TextAppearance.Body")
    func references() {
        let theme = ThemeRegistry(
            overrides: Self.plist(
                """
                <key>TextAppearance.MyCustomBody</key><dict><key>fontSymbolicTrait</key><string>traitItalic</string></dict>
                <key>ActionableButton.Primary</key><dict><key>textAppearance</key><string>TextAppearance.MyCustomBody</string></dict>
                """))
        let button = theme.textAppearance(of: "ActionableButton.Primary")
        #expect(button.symbolicTrait == "traitItalic")
        #expect(button.fontSize == 17)
        #expect(theme.textAppearance(of: "ActionableButton.Secondary").symbolicTrait == "none")
    }

    @Test("a value of the wrong type is reported and ignored, never a crash")
    func badTypes() {
        let theme = ThemeRegistry(
            overrides: Self.plist(
                """
                <key>UICTFontTextStyleBody</key><string>big</string>
                <key>ActionableButton.Primary</key><dict><key>cornerRadius</key><string>round</string><key>textColorName</key><string>ok_color</string></dict>
                <key>ActionableButton.Link</key><string>not a dictionary</string>
                """))
        #expect(theme.number("UICTFontTextStyleBody") == 17)
        #expect(theme.number("cornerRadius", in: "ActionableButton.Primary") == 8)
        #expect(theme.string("textColorName", in: "ActionableButton.Primary") == "ok_color")
        #expect(theme.bool("underlined", in: "ActionableButton.Link") == true)
        #expect(theme.problems.count == 3)
        #expect(theme.problems.contains { $0.contains("UICTFontTextStyleBody: expected a Number, found a String") })
        #expect(theme.problems.contains { $0.contains("ActionableButton.Primary.cornerRadius") })
    }

    @Test(
        "a reference to an undefined appearance falls back to TextAppearance.Body; a broken file is a problem, not a crash"
    )
    func brokenInput() {
        let dangling = ThemeRegistry(
            overrides: Self.plist(
                """
                <key>ActionableButton.Primary</key><dict><key>textAppearance</key><string>TextAppearance.Missing</string></dict>
                """))
        #expect(dangling.textAppearance(of: "ActionableButton.Primary").fontSize == 17)
        let broken = ThemeRegistry(overrides: Data("<plist><dict><key>unterminated".utf8))
        #expect(broken.problems.count == 1)
        #expect(broken.fontName == "Roboto")
        let missing = ThemeRegistry(overridesAt: URL(fileURLWithPath: "/nonexistent/theme.plist"))
        #expect(missing.problems.count == 1)
    }

    @Test("the application builder reads the theme file")
    func builder() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("theme-\(UUID().uuidString).plist")
        try Self.plist("<key>fontName</key><string>Baskerville</string>").write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let base = URL(string: "https://example.com")!
        let configuration = HaapiUIKitConfigurationBuilder(
            clientId: "c", baseUrl: base, tokenEndpointUrl: base, authorizationEndpointUrl: base,
            appRedirect: "app://c"
        ).build()
        #expect(configuration.autoPollingDuration == 3 && configuration.presentationMode == .modal)
        #expect(
            configuration.authenticationSelectionPresentation == .list && configuration.shouldConfirmFlowInterruption)
        #expect(configuration.shouldAutoHandleFlowErrorFeedback && !configuration.useDefaultExternalBrowser)
        let application = HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: configuration).setThemingPlistURL(file)
            .build()
        #expect(application.theme.fontName == "Baskerville")
    }
}
