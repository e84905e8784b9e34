/// Why a document could not be decoded, and where.
///
/// Every failure names the place in the document (`path`), so a broken server response can be
/// diagnosed from the error alone, e.g. `actions[0].model.fields[2].name: expected string, found number`.
public struct HaapiDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// The bytes are not UTF-8; the offset is the first byte that breaks it.
        case invalidUTF8(byteOffset: Int)
        /// The text is not JSON.
        case syntax(detail: String, byteOffset: Int)
        case documentTooLarge(byteCount: Int, limit: Int)
        case nestingTooDeep(limit: Int)
        case duplicateMember(String)
        case typeMismatch(expected: String, found: String)
        case missingMember
        /// The JSON type is right but the value is not acceptable (e.g. a non-numeric polling interval).
        case invalidValue(String)
    }

    public let path: JSONPath
    public let reason: Reason

    public init(path: JSONPath, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        "\(path): \(reasonDescription)"
    }

    private var reasonDescription: String {
        switch reason {
        case .invalidUTF8(let offset):
            "invalid UTF-8 at byte \(offset)"
        case .syntax(let detail, let offset):
            "not valid JSON at byte \(offset): \(detail)"
        case .documentTooLarge(let count, let limit):
            "document of \(count) bytes exceeds the limit of \(limit) bytes"
        case .nestingTooDeep(let limit):
            "nesting deeper than \(limit) levels"
        case .duplicateMember(let name):
            "duplicate member \"\(name)\""
        case .typeMismatch(let expected, let found):
            "expected \(expected), found \(found)"
        case .missingMember:
            "required member is missing"
        case .invalidValue(let detail):
            "invalid value: \(detail)"
        }
    }
}
