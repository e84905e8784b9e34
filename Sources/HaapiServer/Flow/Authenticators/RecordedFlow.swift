import Foundation
import HaapiModel

/// The representations of a `recorded` authenticator, and where each of their actions leads when they are
/// served again: everything is kept as recorded except the `href` of actions and links.
///
/// - The first form of step k (a top-level form, else the first option of a selector, else the first continue
///   action of a client operation) leads to step k+1, or, on the last step, to the end of the authenticator.
/// - Any other action or link leads to the recorded step its recorded address led to (the address of some
///   step's first form, compared by path), or to a "not recorded" problem.
struct RecordedFlow {
    enum Target: Equatable {
        case step(Int)
        case finish
        case notRecorded
    }

    let steps: [JSONValue]
    /// The recorded path of each step's first form → the step it led to.
    private let targets: [String: Int]

    init(steps: [JSONValue]) {
        self.steps = steps
        var targets: [String: Int] = [:]
        for index in steps.indices.dropLast() {
            guard let location = Self.firstForm(in: steps[index]),
                let href = Self.value(at: location + ["model", "href"], in: steps[index])?.stringValue,
                let path = Self.path(of: href), targets[path] == nil
            else { continue }
            targets[path] = index + 1
        }
        self.targets = targets
    }

    /// Whether a recorded representation is a problem (its type is a URI, `https://curity.se/problems/…`)
    /// rather than a step (`authentication-step`).
    static func isProblem(_ step: JSONValue) -> Bool {
        step["type"]?.stringValue?.contains("://") ?? false
    }

    /// Step `index` with each action and link `href` replaced by `address(target)`.
    func served(_ index: Int, address: (Target) -> String) -> JSONValue {
        guard steps.indices.contains(index) else { return .null }
        var step = steps[index]
        rewrite(&step, address: address)
        if let first = Self.firstForm(in: steps[index]) {
            let target: Target = index == steps.count - 1 ? .finish : .step(index + 1)
            Self.set(.string(address(target)), at: first + ["model", "href"], in: &step)
        }
        return step
    }

    private func target(of href: String) -> Target {
        Self.path(of: href).flatMap { targets[$0] }.map(Target.step) ?? .notRecorded
    }

    private func rewrite(_ step: inout JSONValue, address: (Target) -> String) {
        guard case .object(var object) = step else { return }
        if case .array(var actions)? = object["actions"] {
            for index in actions.indices { rewriteAction(&actions[index], address: address) }
            object["actions"] = .array(actions)
        }
        if case .array(var links)? = object["links"] {
            for index in links.indices {
                guard case .object(var link) = links[index], let href = link["href"]?.stringValue else { continue }
                link["href"] = .string(address(target(of: href)))
                links[index] = .object(link)
            }
            object["links"] = .array(links)
        }
        step = .object(object)
    }

    /// An action's own address, and those of the actions inside it (selector options, a client operation's
    /// continue and error actions). A client operation's `arguments` (an app's launch link) stay as recorded.
    private func rewriteAction(_ action: inout JSONValue, address: (Target) -> String) {
        guard case .object(var object) = action, case .object(var model)? = object["model"] else { return }
        if let href = model["href"]?.stringValue { model["href"] = .string(address(target(of: href))) }
        for member in ["options", "continueActions", "errorActions"] {
            guard case .array(var inner)? = model[member] else { continue }
            for index in inner.indices { rewriteAction(&inner[index], address: address) }
            model[member] = .array(inner)
        }
        object["model"] = .object(model)
        action = .object(object)
    }

    /// Where the first form of `step` is, as members and indexes from the step.
    static func firstForm(in step: JSONValue) -> [JSONPathStep]? {
        guard let actions = step["actions"]?.arrayValue else { return nil }
        if let index = actions.firstIndex(where: { $0["template"]?.stringValue == "form" }) {
            return [.member("actions"), .index(index)]
        }
        for (index, action) in actions.enumerated() {
            for member in ["options", "continueActions"] {
                if let inner = action["model"]?[member]?.arrayValue,
                    let first = inner.firstIndex(where: { $0["template"]?.stringValue == "form" })
                {
                    return [.member("actions"), .index(index), .member("model"), .member(member), .index(first)]
                }
            }
        }
        return nil
    }

    /// The path of an address, absolute or relative, without query or fragment: what two recordings of one
    /// server action share (the query often carries a nonce).
    static func path(of href: String) -> String? {
        guard let components = URLComponents(string: href), !components.percentEncodedPath.isEmpty else { return nil }
        return components.percentEncodedPath
    }

    enum JSONPathStep: ExpressibleByStringLiteral {
        case member(String)
        case index(Int)

        init(stringLiteral value: String) { self = .member(value) }
    }

    private static func value(at path: [JSONPathStep], in value: JSONValue) -> JSONValue? {
        var current: JSONValue? = value
        for step in path {
            switch step {
            case .member(let name): current = current?[name]
            case .index(let index): current = current?[index]
            }
        }
        return current
    }

    private static func set(_ new: JSONValue, at path: [JSONPathStep], in value: inout JSONValue) {
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
