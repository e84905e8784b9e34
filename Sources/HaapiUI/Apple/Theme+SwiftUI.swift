#if canImport(SwiftUI) && canImport(UIKit)
import CoreText
import SwiftUI
import UIKit

extension ThemeRegistry {
    /// A colour from the app's asset catalog, else the kit's default for a `hui_*` name (`ThemeAssets`), else
    /// `fallback`.
    func color(_ name: String, fallback: Color) -> Color {
        uiColor(name).map(Color.init(uiColor:)) ?? fallback
    }

    func uiColor(_ name: String) -> UIColor? {
        let app = UIColor(named: name)
        switch ThemeAssets.colour(name, appHas: app != nil) {
        case .app: return app
        case .kit(let system): return Self.systemColour(system)
        case .missing: return nil
        }
    }

    /// An image from the app's asset catalog, else the kit's symbol for a `hui_*` name.
    func image(_ name: String) -> UIImage? {
        let app = UIImage(named: name)
        switch ThemeAssets.image(name, appHas: app != nil) {
        case .app: return app
        case .kit(let symbol): return UIImage(systemName: symbol)
        case .missing: return nil
        }
    }

    static func systemColour(_ name: String) -> UIColor? {
        switch name {
        case "systemBlue": .systemBlue
        case "white": .white
        case "systemBackground": .systemBackground
        case "label": .label
        case "secondaryLabel": .secondaryLabel
        case "separator": .separator
        case "systemRed": .systemRed
        case "systemOrange": .systemOrange
        default: nil
        }
    }

    /// Registers the theme's font families from the app's bundle where they are not installed, and logs what
    /// it did (`ThemeFonts`). Fonts are registered for the process; an installed family is skipped, so a second
    /// application build registers nothing.
    func prepareFonts(bundle: Bundle = .main) {
        _ = ThemeFonts.prepare(
            self,
            in: ThemeFonts.Environment(
                families: { Set(UIFont.familyNames) },
                bundleFontFiles: {
                    (bundle.urls(forResourcesWithExtension: "ttf", subdirectory: nil) ?? [])
                        + (bundle.urls(forResourcesWithExtension: "otf", subdirectory: nil) ?? [])
                },
                register: { CTFontManagerRegisterFontsForURL($0 as CFURL, .process, nil) }))
    }

    func font(_ appearance: TextAppearance) -> Font {
        var font = Font.custom(appearance.fontName, size: CGFloat(appearance.fontSize))
        if appearance.symbolicTrait.contains("Bold") { font = font.bold() }
        if appearance.symbolicTrait.contains("Italic") { font = font.italic() }
        return font
    }
}

extension Text {
    /// Font and colour from a style's `textAppearance` (or another appearance key of the style).
    func themed(_ theme: ThemeRegistry, _ style: String, key: String = "textAppearance") -> some View {
        let appearance = theme.textAppearance(of: style, key: key)
        let colorName = theme.string("textColorName", in: style) ?? appearance.colorName
        return self.font(theme.font(appearance)).foregroundColor(theme.color(colorName, fallback: .primary))
    }
}

struct ThemedButtonStyle: ButtonStyle {
    let theme: ThemeRegistry
    let style: String

    func makeBody(configuration: Configuration) -> some View {
        let appearance = theme.textAppearance(of: style)
        let background =
            theme.string("backgroundColorName", in: style).map { theme.color($0, fallback: .accentColor) } ?? .clear
        return configuration.label
            .font(theme.font(appearance))
            .foregroundColor(
                theme.color(theme.string("textColorName", in: style) ?? appearance.colorName, fallback: .accentColor)
            )
            .frame(maxWidth: .infinity, minHeight: CGFloat(theme.number("height", in: style) ?? 44))
            .background(background)
            .clipShape(RoundedRectangle(cornerRadius: CGFloat(theme.number("cornerRadius", in: style) ?? 8)))
            .opacity(configuration.isPressed ? 0.7 : 1)
    }
}
#endif
