#if canImport(SwiftUI) && canImport(UIKit)
import SwiftUI
import UIKit

extension ThemeRegistry {
    /// A colour from the app's asset catalog (which overrides the kit's names), else `fallback`.
    func color(_ name: String, fallback: Color) -> Color {
        UIColor(named: name).map(Color.init(uiColor:)) ?? fallback
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
