/// The id of a rule a server names at the end of an `error_description`, in brackets (`"htu does not match
/// the request URL [dpop.htu-mismatch]"`, as the swift-haapi dev server writes them; docs/DEBUGGING.md).
public enum ServerRuleID {
    /// The rule id in brackets at the end of `description`: `group.name`, lower-case ASCII letters, digits and
    /// hyphens, at most 64 characters; nil when there is none.
    public static func parse(_ description: String) -> String? {
        guard description.hasSuffix("]"), let open = description.lastIndex(of: "[") else { return nil }
        let id = description[description.index(after: open)..<description.index(before: description.endIndex)]
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        func allowed(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
        guard id.utf8.count <= 64, parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(allowed) })
        else { return nil }
        return String(id)
    }
}

extension AuthorizationProblem {
    /// The rule the server says the authorization request broke, from `error_description` (nil when it
    /// names none).
    public var serverRule: String? { errorDescription.flatMap(ServerRuleID.parse) }
}
