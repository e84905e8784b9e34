extension HaapiError {
    /// The id of the rule the server says the request broke, when its `error_description` ends with one in
    /// brackets (`"htu does not match the request URL [dpop.htu-mismatch]"`, as the swift-haapi dev server
    /// writes them); looked for in the error's cause too. Nil for servers that name no rule.
    public var serverRule: String? {
        switch self {
        case .serverError(_, let description, _): Self.ruleID(in: description)
        default: (cause as? HaapiError)?.serverRule
        }
    }

    /// The rule id in brackets at the end of `description`: `group.name`, lower-case ASCII letters, digits and
    /// hyphens, at most 64 characters; nil when there is none.
    public static func ruleID(in description: String) -> String? {
        guard description.hasSuffix("]"), let open = description.lastIndex(of: "[") else { return nil }
        let id = description[description.index(after: open)..<description.index(before: description.endIndex)]
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        func allowed(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
        guard id.utf8.count <= 64, parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy(allowed) })
        else { return nil }
        return String(id)
    }
}
