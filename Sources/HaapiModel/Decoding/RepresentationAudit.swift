import Foundation

/// What `haapi check` reads in the HAAPI representations it received, beyond what decoding checks: the
/// parts this SDK does not know by name (a newer server, or a vendor extension: decoded as generic, and
/// listed so a team knows what its UI will show plainly) and every `href` that leaves the server's origin.
@_spi(Tooling) public struct RepresentationAudit {
    /// `what value` for each unknown part, such as `field type "color-picker"`.
    @_spi(Tooling) public private(set) var unknown: [String] = []
    /// The hrefs of actions and links on another origin.
    @_spi(Tooling) public private(set) var offOrigin: [String] = []

    /// Walks `body` (one representation or problem) against `server`'s origin. Bounded by the body's own size, which the
    /// transport limits, and by the parser's depth limit.
    @_spi(Tooling) public init() {}

    @_spi(Tooling) public mutating func read(_ body: Data, server: URL) {
        guard let root = try? JSONParser(limits: .init(maxBytes: 512 * 1024, maxDepth: 32)).parse(body),
            let type = root["type"]?.stringValue,
            // A representation has actions, links, messages or properties; anything else is not one.
            type.contains(":") || ["actions", "links", "messages", "properties"].contains(where: { root[$0] != nil })
        else { return }
        // A problem's type is a URI (RFC 9457); a representation's a name.
        if type.contains(":") {
            note(ProblemType(rawValue: type), "problem type")
        } else {
            note(RepresentationType(rawValue: type), "representation type")
        }
        // The authorization response's links go to the app's redirect URI, not to the server.
        guard RepresentationType(rawValue: type) != .oauthAuthorizationResponse else { return }
        walk(root, server: server)
    }

    private mutating func walk(_ value: JSONValue, server: URL) {
        switch value {
        case .array(let items):
            for item in items { walk(item, server: server) }
        case .object(let object):
            if let template = object["template"]?.stringValue {
                note(ActionTemplate(rawValue: template), "action template")
                if let kind = object["kind"]?.stringValue { note(ActionKind(rawValue: kind), "action kind") }
                if template == "client-operation", let name = object["model"]?["name"]?.stringValue {
                    note(ClientOperationName(rawValue: name), "client operation")
                }
            }
            if case .array(let fields)? = object["fields"] {
                for type in fields.compactMap({ $0["type"]?.stringValue }) {
                    note(FormFieldType(rawValue: type), "field type")
                }
            }
            // Web addresses only: a client operation may launch another app by its own scheme (bankid:, …).
            if let href = object["href"]?.stringValue,
                let target = URL(string: href, relativeTo: server)?.absoluteURL,
                ["http", "https"].contains(target.scheme?.lowercased() ?? ""),
                Self.origin(target) != Self.origin(server), !offOrigin.contains(href)
            {
                offOrigin.append(href)
            }
            for key in object.keys.sorted() {
                if let child = object[key] { walk(child, server: server) }
            }
        default:
            break
        }
    }

    private mutating func note<Value: OpenEnum>(_ value: Value, _ what: String) {
        let line = "\(what) \"\(value.rawValue)\""
        if !value.isKnown, !unknown.contains(line) { unknown.append(line) }
    }

    private static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? "")" + (url.port.map { ":\($0)" } ?? "")
    }
}
