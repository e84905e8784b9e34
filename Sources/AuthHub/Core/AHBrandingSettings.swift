import Foundation

/// Reads `fieldsToBeEncryptedInAuthFlow` from a BrandingSettings answer. The value has been seen as a
/// comma-separated string ("password, devicesignature"), as an array, at the top level, and as a
/// `{"name": …, "value": …}` entry of a settings list; "none" or nothing means no field.
enum AHBrandingSettings {
    static let settingName = "fieldsToBeEncryptedInAuthFlow"

    static func fieldsToBeEncrypted(in body: [String: Any]) -> [String] {
        if let value = body[settingName] { return normalise(value) }
        for key in ["settings", "tenantSettings", "data"] {
            if let nested = body[key] as? [String: Any], let value = nested[settingName] { return normalise(value) }
            if let list = body[key] as? [[String: Any]],
                let entry = list.first(where: { $0["name"] as? String == settingName })
            {
                return normalise(entry["value"] ?? "")
            }
        }
        return []
    }

    static func normalise(_ value: Any) -> [String] {
        let items: [String]
        switch value {
        case let text as String: items = text.split(separator: ",").map(String.init)
        case let list as [Any]: items = list.compactMap { $0 as? String }
        default: items = []
        }
        let names = items.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: " ", with: "")
        }
        return names.filter { !$0.isEmpty && $0 != "none" }.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }
}
