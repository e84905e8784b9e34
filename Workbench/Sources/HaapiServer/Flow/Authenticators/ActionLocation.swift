@_spi(Tooling) import HaapiModel

/// The place of an action or a link in a representation, written as the configuration writes it:
/// `actions[0]`, `actions[0].model.options[1]`, `actions[1].model.continueActions[0]`, `links[2]`. An action's
/// address is its `model.href`, a link's its `href`.
struct ActionLocation: Hashable, Sendable, CustomStringConvertible {
    enum Component: Hashable, Sendable {
        case member(String)
        case index(Int)
    }

    let components: [Component]

    init(_ components: [Component]) {
        self.components = components
    }

    /// Reads `actions[0].model.options[1]`; nil for anything else.
    init?(_ text: String) {
        var components: [Component] = []
        for segment in text.split(separator: ".", omittingEmptySubsequences: false) {
            var rest = Substring(segment)
            let name = rest.prefix { $0.isLetter }
            guard !name.isEmpty else { return nil }
            components.append(.member(String(name)))
            rest = rest.dropFirst(name.count)
            while rest.first == "[" {
                guard let close = rest.firstIndex(of: "]"),
                    let index = Int(rest[rest.index(after: rest.startIndex)..<close]),
                    index >= 0
                else { return nil }
                components.append(.index(index))
                rest = rest[rest.index(after: close)...]
            }
            guard rest.isEmpty else { return nil }
        }
        guard !components.isEmpty else { return nil }
        self.components = components
    }

    var description: String {
        var text = ""
        for component in components {
            switch component {
            case .member(let name): text += (text.isEmpty ? "" : ".") + name
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    private var isLink: Bool { components.first == .member("links") }

    /// Where the address is, below the action or link.
    private var hrefPath: [Component] { isLink ? [.member("href")] : [.member("model"), .member("href")] }

    func value(in representation: JSONValue) -> JSONValue? {
        Self.value(at: components, in: representation)
    }

    func href(in representation: JSONValue) -> String? {
        Self.value(at: components + hrefPath, in: representation)?.stringValue
    }

    func exists(in representation: JSONValue) -> Bool { href(in: representation) != nil }

    func kind(in representation: JSONValue) -> String? { value(in: representation)?["kind"]?.stringValue }

    /// What a person would call the action: its title, else its kind.
    func title(in representation: JSONValue) -> String? {
        let item = value(in: representation)
        return item?["title"]?.stringValue ?? item?["model"]?["actionTitle"]?.stringValue ?? item?["kind"]?.stringValue
    }

    func setHref(_ href: String, in representation: inout JSONValue) {
        Self.set(.string(href), at: components + hrefPath, in: &representation)
    }

    /// Every action (and the actions inside it: selector options, a client operation's continue and error
    /// actions) and every link that has an address, in document order.
    static func all(in representation: JSONValue) -> [ActionLocation] {
        var found: [ActionLocation] = []
        func actions(_ items: [JSONValue]?, at base: [Component]) {
            for (index, action) in (items ?? []).enumerated() {
                let here = base + [.index(index)]
                if action["model"]?["href"]?.stringValue != nil { found.append(ActionLocation(here)) }
                for member in ["options", "continueActions", "errorActions"] {
                    actions(action["model"]?[member]?.arrayValue, at: here + [.member("model"), .member(member)])
                }
            }
        }
        actions(representation["actions"]?.arrayValue, at: [.member("actions")])
        for (index, link) in (representation["links"]?.arrayValue ?? []).enumerated()
        where link["href"]?.stringValue != nil {
            found.append(ActionLocation([.member("links"), .index(index)]))
        }
        return found
    }

    /// The action a user takes to go on: the first top-level form, else the first option of a selector,
    /// else the first continue action of a client operation.
    static func firstForm(in representation: JSONValue) -> ActionLocation? {
        guard let actions = representation["actions"]?.arrayValue else { return nil }
        if let index = actions.firstIndex(where: { $0["template"]?.stringValue == "form" }) {
            return ActionLocation([.member("actions"), .index(index)])
        }
        for (index, action) in actions.enumerated() {
            for member in ["options", "continueActions"] {
                if let inner = action["model"]?[member]?.arrayValue,
                    let first = inner.firstIndex(where: { $0["template"]?.stringValue == "form" })
                {
                    return ActionLocation([
                        .member("actions"), .index(index), .member("model"), .member(member), .index(first),
                    ])
                }
            }
        }
        return nil
    }

    private static func value(at path: [Component], in value: JSONValue) -> JSONValue? {
        var current: JSONValue? = value
        for component in path {
            switch component {
            case .member(let name): current = current?[name]
            case .index(let index): current = current?[index]
            }
        }
        return current
    }

    private static func set(_ new: JSONValue, at path: [Component], in value: inout JSONValue) {
        guard let first = path.first else {
            value = new
            return
        }
        let rest = Array(path.dropFirst())
        switch (first, value) {
        case (.member(let name), .object(var object)):
            guard var inner = object[name] else { return }
            set(new, at: rest, in: &inner)
            object[name] = inner
            value = .object(object)
        case (.index(let index), .array(var items)) where items.indices.contains(index):
            set(new, at: rest, in: &items[index])
            value = .array(items)
        default:
            return
        }
    }
}
