/// Where in a document something was found, e.g. `actions[0].model.fields[2].name`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        /// An object member, by name.
        case member(String)
        /// An array element, by position.
        case index(Int)
    }

    /// The steps from the document's root.
    public private(set) var components: [Component]

    /// The document itself.
    public static let root = JSONPath(components: [])

    /// A path from its steps.
    public init(components: [Component]) {
        self.components = components
    }

    /// The path to a member of the value here.
    public func appending(_ member: String) -> JSONPath {
        JSONPath(components: components + [.member(member)])
    }

    /// The path to an element of the array here.
    public func appending(_ index: Int) -> JSONPath {
        JSONPath(components: components + [.index(index)])
    }

    mutating func push(_ component: Component) { components.append(component) }
    mutating func pop() { _ = components.popLast() }

    /// `(root)` for the document itself; otherwise dotted members and bracketed indices.
    public var description: String {
        guard !components.isEmpty else { return "(root)" }
        var text = ""
        for component in components {
            switch component {
            case .member(let name):
                if !text.isEmpty { text += "." }
                text += name
            case .index(let position):
                text += "[\(position)]"
            }
        }
        return text
    }
}
