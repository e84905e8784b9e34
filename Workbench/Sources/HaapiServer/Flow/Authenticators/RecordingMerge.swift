import Foundation
@_spi(Tooling) import HaapiModel

/// One representation of a recorded login, and the action of it the client followed next.
public struct RecordedVisit: Sendable {
    public var representation: JSONValue
    /// The place of the action followed (`actions[0].model.options[2]`); nil when the login stopped here.
    public var followed: String?
    /// Whether following it ended the login (the server answered with the authorization response).
    public var finishes: Bool

    public init(representation: JSONValue, followed: String? = nil, finishes: Bool = false) {
        self.representation = representation
        self.followed = followed
        self.finishes = finishes
    }
}

/// What `haapi login --record` needs of a recording: which action a request followed, and how a new path
/// joins the recording already in the file (as a branch where it takes another way).
public enum RecordingMerge {
    /// The place of the action or link of `representation` that a request to `url` with `method` follows
    /// (addresses compared by path: queries carry nonces); with several, the one whose fields the request sent.
    public static func location(
        followedBy method: String, url: URL, sentFields: Set<String>, in representation: JSONValue
    ) -> String? {
        guard let path = RecordedLogin.path(of: url.absoluteString) else { return nil }
        let candidates = ActionLocation.all(in: representation).filter { location in
            guard let href = location.href(in: representation), RecordedLogin.path(of: href) == path else {
                return false
            }
            let declared = location.value(in: representation)?["model"]?["method"]?.stringValue ?? "GET"
            return declared.uppercased() == method.uppercased()
        }
        let best =
            candidates.first { location in
                let names = (location.value(in: representation)?["model"]?["fields"]?.arrayValue ?? []).compactMap {
                    $0["name"]?.stringValue
                }
                return !names.isEmpty && Set(names).isSuperset(of: sentFields) && !sentFields.isEmpty
            } ?? candidates.first
        return best?.description
    }

    /// Waits answered pending more than once in a row become one step answered that often (`polls`).
    static func collapsingWaits(_ visits: [RecordedVisit]) -> [(visit: RecordedVisit, polls: Int)] {
        var collapsed: [(visit: RecordedVisit, polls: Int)] = []
        for visit in visits {
            if let last = collapsed.last, isPending(last.visit.representation), isPending(visit.representation),
                signature(last.visit.representation) == signature(visit.representation),
                last.visit.followed.flatMap(ActionLocation.init).flatMap({ $0.kind(in: last.visit.representation) })
                    == "poll"
            {
                collapsed[collapsed.count - 1].polls += 1
                collapsed[collapsed.count - 1].visit.followed = visit.followed
                collapsed[collapsed.count - 1].visit.finishes = visit.finishes
            } else {
                collapsed.append((visit, 1))
            }
        }
        return collapsed
    }

    /// Adds the path `visits` to the recording `existing` (steps as the configuration writes them; empty for
    /// a new one) and returns the recording's new steps. The path follows the recording while it takes the
    /// same actions, and becomes a branch where it takes one the recording does not have. A path that meets
    /// a step other than the one recorded there (the server answered differently) is refused: record it into
    /// another file.
    public static func add(_ visits: [RecordedVisit], to existing: [JSONValue]) throws -> [JSONValue] {
        let path = collapsingWaits(visits)
        guard let first = path.first else { return existing }
        var recording: RecordedLogin
        do {
            recording = existing.isEmpty ? RecordedLogin(steps: []) : try RecordedLogin(configured: existing)
        } catch {
            throw RecordingMergeError("the recording in the file cannot be read: steps\(error.place): \(error.message)")
        }
        if recording.steps.isEmpty {
            recording.steps.append(.init(representation: first.visit.representation, next: [:], polls: first.polls))
        } else if signature(recording.steps[0].representation) != signature(first.visit.representation) {
            throw RecordingMergeError(
                "this login began with \(describe(first.visit.representation)), the recording with \(describe(recording.steps[0].representation)); record it into another file"
            )
        }
        var current = 0
        for (index, entry) in path.enumerated() {
            guard let followed = entry.visit.followed, let location = ActionLocation(followed) else { break }
            let known = recording.steps[current].next[location]
            if entry.visit.finishes {
                guard known == nil || known == .finish else {
                    throw RecordingMergeError(
                        "at step \(index + 1) the login ended where the recording goes on; record it into another file")
                }
                recording.steps[current].next[location] = .finish
                break
            }
            guard path.indices.contains(index + 1) else { break }
            let next = path[index + 1]
            switch known {
            case .step(let target)?:
                guard signature(recording.steps[target].representation) == signature(next.visit.representation) else {
                    throw RecordingMergeError(
                        "at step \(index + 2) the server answered \(describe(next.visit.representation)) where the recording has \(describe(recording.steps[target].representation)); record it into another file"
                    )
                }
                recording.steps[target].polls = max(recording.steps[target].polls, next.polls)
                current = target
            case .finish?:
                throw RecordingMergeError(
                    "at step \(index + 1) the recording ends where this login went on; record it into another file")
            case nil:
                recording.steps.append(.init(representation: next.visit.representation, next: [:], polls: next.polls))
                recording.steps[current].next[location] = .step(recording.steps.count - 1)
                current = recording.steps.count - 1
            }
        }
        return recording.configured
    }

    /// What tells two recorded steps apart: the type, a waiting step's status, the kinds of the actions.
    static func signature(_ representation: JSONValue) -> String {
        let kinds = (representation["actions"]?.arrayValue ?? []).map { $0["kind"]?.stringValue ?? "?" }
        return [
            representation["type"]?.stringValue ?? "?", representation["properties"]?["status"]?.stringValue ?? "",
            kinds.joined(separator: ","),
        ].joined(separator: " ")
    }

    static func isPending(_ representation: JSONValue) -> Bool {
        representation["type"] == "polling-step" && representation["properties"]?["status"] == "pending"
    }

    static func describe(_ representation: JSONValue) -> String {
        let type = representation["type"]?.stringValue ?? "a representation"
        let kind = representation["actions"]?[0]?["kind"]?.stringValue
        return kind.map { "\(type) (\($0))" } ?? type
    }
}

/// Why a new path cannot join a recording.
public struct RecordingMergeError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
