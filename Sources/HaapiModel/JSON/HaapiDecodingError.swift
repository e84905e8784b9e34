/// Why a document could not be decoded, and where.
///
/// Every failure names the place in the document (`path`), so a broken server response can be
/// diagnosed from the error alone, e.g. `actions[0].model.fields[2].name: expected string, found number`.
public struct HaapiDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// The bytes are not UTF-8; the offset is the first byte that breaks it.
        case invalidUTF8(byteOffset: Int)
        /// The text is not JSON.
        case syntax(detail: String, byteOffset: Int)
        /// The body is larger than the parser's limit.
        case documentTooLarge(byteCount: Int, limit: Int)
        /// Arrays and objects nest deeper than the parser's limit.
        case nestingTooDeep(limit: Int)
        /// An object names the same member twice.
        case duplicateMember(String)
        /// A member has another JSON type than the format requires.
        case typeMismatch(expected: String, found: String)
        /// A required member is absent.
        case missingMember
        /// The JSON type is right but the value is not acceptable (e.g. a non-numeric polling interval).
        case invalidValue(String)
    }

    /// Where in the document.
    public let path: JSONPath
    /// What was wrong.
    public let reason: Reason

    /// An error at `path`.
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
