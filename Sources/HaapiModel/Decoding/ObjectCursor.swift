import Foundation

/// Reads members of one JSON object while remembering where it sits in the document,
/// so every failure can name its path.
///
/// Optional members treat `null` as absent (servers emit `"label": null`), but a member of the wrong
/// JSON type is an error: silently ignoring it would hide a broken or hostile response.
struct ObjectCursor {
    let object: JSONObject
    let path: JSONPath
    let raw: JSONValue

    init(_ value: JSONValue, at path: JSONPath) throws {
        guard case .object(let object) = value else {
            throw HaapiDecodingError(path: path, reason: .typeMismatch(expected: "object", found: value.typeName))
        }
        self.object = object
        self.path = path
        self.raw = value
    }

    func mismatch(_ key: String, expected: String, found: JSONValue) -> HaapiDecodingError {
        HaapiDecodingError(path: path.appending(key), reason: .typeMismatch(expected: expected, found: found.typeName))
    }

    func missing(_ key: String) -> HaapiDecodingError {
        HaapiDecodingError(path: path.appending(key), reason: .missingMember)
    }

    func invalid(_ key: String, _ detail: String) -> HaapiDecodingError {
        HaapiDecodingError(path: path.appending(key), reason: .invalidValue(detail))
    }

    /// The member's value, or `nil` when absent or `null`.
    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func string(_ key: String) throws -> String {
        guard let text = try optionalString(key) else { throw missing(key) }
        return text
    }

    func optionalString(_ key: String) throws -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw mismatch(key, expected: "string", found: value) }
        return text
    }

    func optionalBool(_ key: String) throws -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(key, expected: "boolean", found: value) }
        return flag
    }

    func optionalInt(_ key: String) throws -> Int? {
        guard let value = value(key) else { return nil }
        guard case .number(let number) = value else { throw mismatch(key, expected: "number", found: value) }
        guard let integer = number.intValue else { throw invalid(key, "\(number.literal) is not an integer") }
        return integer
    }

    /// An integer sent either as a JSON number or as a string of digits; servers differ on this
    /// (polling `interval`, `maxWaitTime`, OAuth `expires_in`).
    func flexibleInt(_ key: String) throws -> Int? {
        guard let value = value(key) else { return nil }
        switch value {
        case .number(let number):
            guard let integer = number.intValue else { throw invalid(key, "\(number.literal) is not an integer") }
            return integer
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let integer = Int(trimmed) { return integer }
            if let double = Double(trimmed), double.isFinite, double == double.rounded(), abs(double) < 1e15 {
                return Int(double)
            }
            throw invalid(key, "\"\(text)\" is not a whole number")
        default:
            throw mismatch(key, expected: "number or numeric string", found: value)
        }
    }

    func optionalObject(_ key: String) throws -> ObjectCursor? {
        guard let value = value(key) else { return nil }
        return try ObjectCursor(value, at: path.appending(key))
    }

    func object(_ key: String) throws -> ObjectCursor {
        guard let cursor = try optionalObject(key) else { throw missing(key) }
        return cursor
    }

    /// The elements of an array member with their paths; empty when absent.
    func array(_ key: String) throws -> [(value: JSONValue, path: JSONPath)] {
        guard let value = value(key) else { return [] }
        guard case .array(let elements) = value else { throw mismatch(key, expected: "array", found: value) }
        let base = path.appending(key)
        return elements.enumerated().map { ($0.element, base.appending($0.offset)) }
    }

    func objects(_ key: String) throws -> [ObjectCursor] {
        try array(key).map { try ObjectCursor($0.value, at: $0.path) }
    }

    func strings(_ key: String) throws -> [String] {
        try array(key).map { element in
            guard case .string(let text) = element.value else {
                throw HaapiDecodingError(
                    path: element.path, reason: .typeMismatch(expected: "string", found: element.value.typeName))
            }
            return text
        }
    }

    /// A human-readable text `X` and its localisation key `XKey`; `nil` when neither is present.
    func message(_ key: String) throws -> Message? {
        let literal = try optionalString(key)
        let localisationKey = try optionalString(key + "Key")
        guard literal != nil || localisationKey != nil else { return nil }
        return Message(literal: literal, key: localisationKey)
    }

    /// Decodes bytes sent as base64url (WebAuthn challenges, user ids, credential ids), padded or not, with
    /// the trailing bits browsers ignore (`Base64URL.decodeForgiving`).
    func base64URLData(_ key: String) throws -> [UInt8]? {
        guard let text = try optionalString(key) else { return nil }
        guard let bytes = Base64URL.decodeForgiving(text) else { throw invalid(key, "not base64url") }
        return bytes
    }
}
