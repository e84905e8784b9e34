import Foundation
@_spi(Tooling) import HaapiSdk
import HaapiServer

/// What `haapi login --record FILE` keeps: the HAAPI steps the server sent during the login and the action
/// followed from each, for `haapi serve --config` (docs/FLOWS.md). Only representation bodies are kept, and of
/// them nothing that identifies this login:
/// - no header, cookie, token response or authorization code (the `oauth-authorization-response` step is left
///   out, and `access_token`, `code`, `id_token`, `refresh_token`, `session_state` are removed from every
///   `properties`);
/// - no value the client sent: every string of a step equal to one (a prefilled username, say) is dropped,
///   and inside a longer text replaced by `…`; the `value` of a password field is dropped in any case;
/// - no query or fragment in an action's or link's address (where servers put nonces); the replay matches
///   addresses by path;
/// - a client operation's one-time values (`autoStartToken`, `activationCode`, the values in its launch link's
///   query, a long random segment of its path) become placeholders of the same shape (`00000000-0000-…`), so
///   launch links keep their form.
/// Problems and `continue-same-step` answers are left out too: replayed in place of the next step they would
/// send the app round in a circle.
actor FlowRecording {
    private var visits: [RecordedVisit] = []
    /// What the user sent: values of the flow's form submissions that no step had offered before.
    private var sent: Set<String> = []
    /// The values steps prefilled (hidden fields, defaults): sending one back is not typing it.
    private var offered: Set<String> = []
    /// Steps no action of the step before led to (the recording cannot place them).
    private(set) var unplaced = 0

    /// A client operation's arguments that are new for each login.
    static let oneTimeArguments: Set<String> = ["autoStartToken", "activationCode"]
    /// Values sent shorter than this are not scrubbed from texts ("1", "on", "true" are everywhere).
    static let shortestScrubbed = 3

    func note(_ request: HTTPRequest, _ response: HTTPResponse) {
        let submitted = Self.submittedValues(request)
        for value in submitted.map(\.value) where value.count >= Self.shortestScrubbed && !offered.contains(value) {
            sent.insert(value)
        }
        let type = (response.headers["content-type"] ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard type == "application/vnd.auth+json", let step = try? JSONParser().parse(response.body),
            let kind = step["type"]?.stringValue, !kind.contains("://"), kind != "continue-same-step"
        else { return }
        let followed = visits.last.flatMap {
            RecordingMerge.location(
                followedBy: request.method, url: request.url, sentFields: Set(submitted.map(\.name)),
                in: $0.representation)
        }
        if kind == "oauth-authorization-response" {
            if let followed, !visits.isEmpty {
                visits[visits.count - 1].followed = followed
                visits[visits.count - 1].finishes = true
            }
            return
        }
        if !visits.isEmpty {
            guard let followed else {
                unplaced += 1
                return
            }
            visits[visits.count - 1].followed = followed
        }
        Self.fieldValues(in: step, into: &offered)
        visits.append(RecordedVisit(representation: step))
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

    /// The path recorded, scrubbed; empty when no step was seen.
    func path() -> [RecordedVisit] {
        visits.map { visit in
            var scrubbed = visit
            scrubbed.representation = scrub(visit.representation, member: nil)
            return scrubbed
        }
    }

    /// The names and values of a HAAPI form submission (a request for a representation that is not the
    /// authorization request, whose parameters are the app's configuration).
    private static func submittedValues(_ request: HTTPRequest) -> [(name: String, value: String)] {
        guard (request.header("Accept") ?? "").contains("application/vnd.auth+json") else { return [] }
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard !query.contains(where: { $0.name == "client_id" }) else { return [] }
        var values = query.compactMap { item in item.value.map { (name: item.name, value: $0) } }
        if let body = request.body, let text = String(data: body, encoding: .utf8),
            (request.header("Content-Type") ?? "").lowercased().hasPrefix("application/x-www-form-urlencoded"),
            let pairs = FormURLEncoding.decode(text)
        {
            values += pairs.map { (name: $0.0, value: $0.1) }
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
                // Credentials in `properties` (a code, tokens, the session state) go, whatever the masking would show.
                if member == "properties", MaskedText.isSecret(name: key) { continue }
                if key == "arguments", case .object(let arguments) = inner {
                    kept[key] = .object(Self.placeholders(in: arguments))
                    continue
                }
                if case .string(let text) = inner, sent.contains(text), key != "type", key != "name" { continue }
                kept[key] = scrub(inner, member: key)
            }
            return .object(kept)
        default:
            return value
        }
    }

    /// A client operation's arguments with its one-time values as placeholders of their shape; its launch link
    /// keeps its scheme, path and parameter names.
    static func placeholders(in arguments: JSONObject) -> JSONObject {
        var oneTime = Set(
            arguments.compactMap { key, value in oneTimeArguments.contains(key) ? value.stringValue : nil })
        var kept = arguments
        for (key, value) in arguments {
            guard case .string(let text) = value else { continue }
            if oneTimeArguments.contains(key) {
                kept[key] = .string(placeholder(text))
            } else if key == "href", var link = URLComponents(string: text) {
                let items = link.queryItems?.map { item -> URLQueryItem in
                    guard let value = item.value, !["null", ""].contains(value) else { return item }
                    oneTime.insert(value)
                    return URLQueryItem(name: item.name, value: placeholder(value))
                }
                link.queryItems = items
                let segments = link.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).map {
                    segment in
                    segment.count >= 16 && segment.allSatisfy { $0.isLetter || $0.isNumber || "-_".contains($0) }
                        ? placeholder(String(segment)) : String(segment)
                }
                link.percentEncodedPath = segments.joined(separator: "/")
                kept[key] = .string(link.string ?? placeholder(text))
            }
        }
        // A one-time value repeated in another argument (a token inside a text) goes too.
        for (key, value) in kept where !oneTimeArguments.contains(key) && key != "href" {
            guard case .string(let text) = value else { continue }
            kept[key] = .string(oneTime.reduce(text) { $0.replacingOccurrences(of: $1, with: placeholder($1)) })
        }
        return kept
    }

    /// `1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed` → `00000000-0000-0000-0000-000000000000`: letters and digits become
    /// 0, the rest stays.
    static func placeholder(_ value: String) -> String {
        String(value.map { $0.isLetter || $0.isNumber ? "0" : $0 })
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
