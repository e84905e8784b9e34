import Foundation
@_spi(Tooling) import HaapiModel

/// One value of a style definition.
public enum StyleValue: Sendable, Equatable {
    /// A string (a colour name, a font name, a reference to another style).
    case string(String)
    /// A number.
    case number(Double)
    /// A boolean.
    case bool(Bool)
    /// A style: values by key.
    case dictionary([String: StyleValue])

    var typeName: String {
        switch self {
        case .string: "String"
        case .number: "Number"
        case .bool: "Boolean"
        case .dictionary: "Dictionary"
        }
    }

    init?(propertyList value: Any) {
        switch value {
        case let text as String: self = .string(text)
        // `<true/>` arrives as a Swift `Bool` on Linux and as a `c`-typed NSNumber on Apple platforms, while
        // `<integer>1</integer>` also bridges to `Bool`: only the exact type tells them apart.
        case let number as NSNumber where JSONValue.isBoolean(value): self = .bool(number.boolValue)
        case let number as NSNumber: self = .number(number.doubleValue)
        case let dictionary as [String: Any]:
            var members: [String: StyleValue] = [:]
            for (key, member) in dictionary {
                guard let converted = StyleValue(propertyList: member) else { return nil }
                members[key] = converted
            }
            self = .dictionary(members)
        default: return nil
        }
    }
}

/// A text appearance after references are resolved.
public struct TextAppearance: Sendable, Equatable {
    /// The font family (`Roboto` by default).
    public let fontName: String
    /// The size in points.
    public let fontSize: Double
    /// The theme's `fontSymbolicTrait` (`none`, `traitBold`, `traitItalic`).
    public let symbolicTrait: String
    /// `left`, `center`, `right` or `natural`.
    public let alignment: String
    /// The name of the text colour in the theme.
    public let colorName: String

    /// An appearance from resolved values.
    public init(fontName: String, fontSize: Double, symbolicTrait: String, alignment: String, colorName: String) {
        self.fontName = fontName
        self.fontSize = fontSize
        self.symbolicTrait = symbolicTrait
        self.alignment = alignment
        self.colorName = colorName
    }
}

/// The style registry: the built-in definitions, overridden key by key from the app's property list.
///
/// Overrides replace only the keys they name (the rest of a style keeps its built-in values). A value
/// whose type differs from the built-in one is logged as an error (`HAAPI_UI_THEMING`) and ignored, so a
/// mistake in a theme file never crashes the app. New keys (an app's own `TextAppearance.MyBody`) are added.
public final class ThemeRegistry: Sendable {
    /// Every style by name, after the app's overrides.
    public let definitions: [String: StyleValue]
    /// Problems found while loading overrides, in the order they were found.
    public let problems: [String]

    /// The built-in theme with the overrides of the property list at `url`; a file that cannot be read is reported in
    /// `problems`.
    public convenience init(overridesAt url: URL? = nil) {
        var data: Data?
        var problems: [String] = []
        if let url {
            do { data = try Data(contentsOf: url) } catch {
                problems.append("cannot read \(url.lastPathComponent): \(error.localizedDescription)")
            }
        }
        self.init(overrides: data, initialProblems: problems)
    }

    /// The built-in theme with the overrides of a property list's data.
    public init(overrides: Data?, initialProblems: [String] = []) {
        var problems = initialProblems
        var definitions = Self.parse(Data(DefaultTheme.plist.utf8), problems: &problems)
        HaapiLogger.debug(UIKitFollowUpTag.theming, "loaded \(definitions.count) built-in style definitions")
        if let overrides {
            let custom = Self.parse(overrides, problems: &problems)
            for key in custom.keys.sorted() {
                guard let value = custom[key] else { continue }
                definitions[key] = Self.merge(key: key, base: definitions[key], override: value, problems: &problems)
            }
            HaapiLogger.info(UIKitFollowUpTag.theming, "applied \(custom.count) theme overrides")
        }
        for problem in problems { HaapiLogger.error(UIKitFollowUpTag.theming, "\(problem)") }
        self.definitions = definitions
        self.problems = problems
    }

    private static func parse(_ data: Data, problems: inout [String]) -> [String: StyleValue] {
        let root: Any
        do { root = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) } catch {
            problems.append("the theme property list cannot be parsed: \(error.localizedDescription)")
            return [:]
        }
        guard case .dictionary(let members)? = StyleValue(propertyList: root) else {
            problems.append("the theme property list must be a dictionary of style definitions")
            return [:]
        }
        return members
    }

    private static func merge(
        key: String, base: StyleValue?, override: StyleValue, problems: inout [String]
    ) -> StyleValue? {
        guard let base else { return override }
        switch (base, override) {
        case (.dictionary(let baseMembers), .dictionary(let overrideMembers)):
            var merged = baseMembers
            for member in overrideMembers.keys.sorted() {
                guard let value = overrideMembers[member] else { continue }
                merged[member] = merge(
                    key: key + "." + member, base: baseMembers[member], override: value, problems: &problems)
            }
            return .dictionary(merged)
        case (.string, .string), (.number, .number), (.bool, .bool):
            return override
        default:
            problems.append(
                "\(key): expected a \(base.typeName), found a \(override.typeName); keeping the built-in value")
            return base
        }
    }

    // MARK: - Reading styles

    /// The theme's font family.
    public var fontName: String { string("fontName") ?? "Roboto" }

    /// The members of a style; empty (and a warning logged) when there is no style of that name.
    public func style(_ name: String) -> [String: StyleValue] {
        if case .dictionary(let members)? = definitions[name] { return members }
        HaapiLogger.warning(UIKitFollowUpTag.component, "no style definition named \(name)")
        return [:]
    }

    /// A string value of `style` (or a top-level one), references resolved.
    public func string(_ key: String, in style: String? = nil) -> String? {
        if case .string(let text)? = value(key, in: style) { return text }
        return nil
    }

    /// A number value of `style` (or a top-level one), references resolved.
    public func number(_ key: String, in style: String? = nil) -> Double? {
        if case .number(let number)? = value(key, in: style) { return number }
        return nil
    }

    /// A boolean value of `style` (or a top-level one), references resolved.
    public func bool(_ key: String, in style: String? = nil) -> Bool? {
        if case .bool(let flag)? = value(key, in: style) { return flag }
        return nil
    }

    private func value(_ key: String, in style: String?) -> StyleValue? {
        guard let style else { return definitions[key] }
        return self.style(style)[key]
    }

    /// The text appearance a style uses (its `textAppearance` names a `TextAppearance.*` definition),
    /// with sizes that name a text style (`UICTFontTextStyleBody`) resolved to numbers.
    public func textAppearance(of style: String, key: String = "textAppearance") -> TextAppearance {
        let reference = string(key, in: style) ?? "TextAppearance.Body"
        var appearance = self.style(reference)
        if appearance.isEmpty {
            HaapiLogger.error(
                UIKitFollowUpTag.theming,
                "\(style).\(key) names \(reference), which is not defined; using TextAppearance.Body")
            appearance = self.style("TextAppearance.Body")
        }
        // A custom appearance may name only what it changes; the rest comes from TextAppearance.Body.
        let body = self.style("TextAppearance.Body")
        func member(_ name: String) -> StyleValue? { appearance[name] ?? body[name] }
        let size: Double
        switch member("fontSize") {
        case .number(let points)?: size = points
        case .string(let textStyle)?: size = number(textStyle) ?? 17
        default: size = 17
        }
        func text(_ name: String, _ fallback: String) -> String {
            if case .string(let value)? = member(name) { return value }
            return fallback
        }
        return TextAppearance(
            fontName: text("fontName", fontName), fontSize: size, symbolicTrait: text("fontSymbolicTrait", "none"),
            alignment: text("textAlignment", "natural"), colorName: text("textColorName", "hui_on_background"))
    }
}
