extension JSONValue {
    /// JSON for people to read and edit: two-space indents, members in the order they came, empty objects and
    /// arrays as `{}` and `[]`. The one pretty-printer of the toolkit (recordings, the inspector, the CLI).
    public func prettyPrinted(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .object(let object) where !object.isEmpty:
            let members = object.map { key, member in
                inner + JSONValue.string(key).serialized() + ": " + member.prettyPrinted(indent: inner)
            }
            return "{\n" + members.joined(separator: ",\n") + "\n" + indent + "}"
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + $0.prettyPrinted(indent: inner) }.joined(separator: ",\n") + "\n"
                + indent
                + "]"
        default:
            return serialized()
        }
    }
}
