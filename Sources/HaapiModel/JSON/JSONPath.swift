/// Where in a document something was found, e.g. `actions[0].model.fields[2].name`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case member(String)
        case index(Int)
    }

    public private(set) var components: [Component]

    public static let root = JSONPath(components: [])

    public init(components: [Component]) {
        self.components = components
    }

    public func appending(_ member: String) -> JSONPath {
        JSONPath(components: components + [.member(member)])
    }

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
