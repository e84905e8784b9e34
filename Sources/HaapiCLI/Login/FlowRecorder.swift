import Foundation
import HaapiSdk

/// What `haapi login --record FILE` keeps: the HAAPI steps the server sent during the login, as one `recorded`
/// authenticator for `haapi serve --config` (docs/FLOWS.md). Only representation bodies are kept, and of them
/// nothing that identifies this login:
/// - no header, cookie, token response or authorization code (the `oauth-authorization-response` step is left
///   out, and `access_token`, `code`, `id_token`, `refresh_token`, `session_state` are removed from every
///   `properties`);
/// - no value the client sent: every string of a step equal to one (a prefilled username, say) is dropped,
///   and inside a longer text replaced by `…`; the `value` of a password field is dropped in any case;
/// - no query or fragment in an action's or link's address (where servers put nonces); the replay matches
///   addresses by path.
/// Problems and `continue-same-step` answers are left out too: replayed in place of the next step they would
/// send the app round in a circle.
actor FlowRecording {
    private var steps: [JSONValue] = []
    /// What the user sent: values of the flow's form submissions that no step had offered before.
    private var sent: Set<String> = []
    /// The values steps prefilled (hidden fields, defaults): sending one back is not typing it.
    private var offered: Set<String> = []

    /// The members of `properties` that carry credentials.
    static let secretProperties: Set<String> = ["access_token", "code", "id_token", "refresh_token", "session_state"]
    /// Values sent shorter than this are not scrubbed from texts ("1", "on", "true" are everywhere).
    static let shortestScrubbed = 3

    func note(_ request: HTTPRequest, _ response: HTTPResponse) {
        for value in Self.submittedValues(request)
        where value.count >= Self.shortestScrubbed && !offered.contains(value) {
            sent.insert(value)
        }
        let type = (response.headers["content-type"] ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard type == "application/vnd.auth+json", let step = try? JSONParser().parse(response.body),
            let kind = step["type"]?.stringValue, !kind.contains("://"),
            !["oauth-authorization-response", "continue-same-step"].contains(kind)
        else { return }
        Self.fieldValues(in: step, into: &offered)
        steps.append(step)
    }

    private static func fieldValues(in value: JSONValue, into values: inout Set<String>) {
        switch value {
        case .array(let items):
            for item in items { fieldValues(in: item, into: &values) }
        case .object(let object):
            if object["name"]?.stringValue != nil, let prefilled = object["value"]?.stringValue {
                values.insert(prefilled)
            }
            for (_, member) in object { fieldValues(in: member, into: &values) }
        default:
            break
        }
    }

    /// The recorded authenticator, scrubbed; nil when no step was seen.
    func authenticator(id: String, title: String, user: String) -> JSONValue? {
        guard !steps.isEmpty else { return nil }
        let scrubbed = steps.map { scrub($0, member: nil) }
        return [
            "id": .string(id), "type": "recorded", "title": .string(title), "user": .string(user),
            "steps": .array(scrubbed),
        ]
    }

    /// The values of a HAAPI form submission (a request for a representation that is not the authorization
    /// request, whose parameters are the app's configuration).
    private static func submittedValues(_ request: HTTPRequest) -> [String] {
        guard (request.header("Accept") ?? "").contains("application/vnd.auth+json") else { return [] }
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard !query.contains(where: { $0.name == "client_id" }) else { return [] }
        var values = query.compactMap(\.value)
        if let body = request.body, let text = String(data: body, encoding: .utf8),
            (request.header("Content-Type") ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded"),
            let pairs = FormURLEncoding.decode(text)
        {
            values += pairs.map(\.value)
        }
        return values
    }

    private func scrub(_ value: JSONValue, member: String?) -> JSONValue {
        switch value {
        case .string(let text):
            if member == "href", let address = URLComponents(string: text) {
                var bare = address
                bare.query = nil
                bare.fragment = nil
                return .string(bare.string ?? text)
            }
            return .string(sent.reduce(text) { $0.replacingOccurrences(of: $1, with: "…") })
        case .array(let items):
            return .array(items.map { scrub($0, member: nil) })
        case .object(let object):
            var kept = JSONObject()
            let isPassword = object["type"]?.stringValue == "password"
            for (key, inner) in object {
                if key == "value", isPassword { continue }
                if member == "properties", Self.secretProperties.contains(key) { continue }
                if case .string(let text) = inner, sent.contains(text), key != "type", key != "name" { continue }
                kept[key] = scrub(inner, member: key)
            }
            return .object(kept)
        default:
            return value
        }
    }
}

/// The transport of a recorded login: the SDK's own, with every exchange shown to the recording.
struct RecordingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let recording: FlowRecording

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let response = try await inner.send(request)
        await recording.note(request, response)
        return response
    }
}

/// JSON for a file people read and edit: two-space indents, members in the order they came.
enum PrettyJSON {
    static func text(_ value: JSONValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + text($0, indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let object) where !object.isEmpty:
            let members = object.map { key, member in
                inner + JSONValue.string(key).serialized() + ": " + text(member, indent: inner)
            }
            return "{\n" + members.joined(separator: ",\n") + "\n" + indent + "}"
        default:
            return value.serialized()
        }
    }
}
