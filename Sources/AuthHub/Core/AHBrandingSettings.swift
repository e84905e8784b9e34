import Foundation
@_spi(Tooling) import HaapiModel

/// Reads `fieldsToBeEncryptedInAuthFlow` from a BrandingSettings answer. The value has been seen as a
/// comma-separated string ("password, devicesignature"), as an array, at the top level, and as a
/// `{"name": …, "value": …}` entry of a settings list; "none" or nothing means no field.
enum AHBrandingSettings {
    static let settingName = "fieldsToBeEncryptedInAuthFlow"

    static func fieldsToBeEncrypted(in body: JSONObject) -> [String] {
        if let value = body[settingName] { return normalise(value) }
        for key in ["settings", "tenantSettings", "data"] {
            switch body[key] {
            case .object(let nested):
                if let value = nested[settingName] { return normalise(value) }
            case .array(let list):
                if let entry = list.first(where: { $0["name"]?.stringValue == settingName }) {
                    return normalise(entry["value"] ?? .null)
                }
            default: continue
            }
        }
        return []
    }

    static func normalise(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let text): normalise(text.split(separator: ",").map(String.init))
        case .array(let list): normalise(list.compactMap(\.stringValue))
        default: []
        }
    }

    /// Lower-cased, without spaces, without "none" and without repeats, in the order given.
    static func normalise(_ items: [String]) -> [String] {
        let names = items.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: " ", with: "")
        }
        return names.filter { !$0.isEmpty && $0 != "none" }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }
}
