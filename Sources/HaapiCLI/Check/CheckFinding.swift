import Foundation
import HaapiModel

/// The groups of checks `haapi check` runs, in order.
enum CheckGroup: String, CaseIterable, Sendable {
    case discovery, dpop, haapi, hygiene
}

/// One result of a check: what was checked, what was sent and what came back (secrets masked), how bad it
/// is, where the rule is written and how to fix it. Passed checks are kept too (severity `pass`), so the
/// report says what was tried, not only what failed.
struct CheckFinding: Sendable {
    enum Severity: String, Sendable, Comparable {
        case error, warning, info, pass

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .info: 2
            case .pass: 3
            }
        }

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    let id: String
    let group: CheckGroup
    let severity: Severity
    /// What was found, in one sentence.
    let title: String
    /// The request, as a line (method, path, what was special about it).
    var sent: String?
    /// The answer, as a line (status, OAuth error, the relevant header).
    var received: String?
    /// The specification section the check reads.
    let reference: String
    /// What to change on the server, in one line; nil for passes and information.
    var fix: String?

    var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "group": .string(group.rawValue), "severity": .string(severity.rawValue),
            "title": .string(title), "reference": .string(reference),
        ]
        if let sent { object["sent"] = .string(sent) }
        if let received { object["received"] = .string(received) }
        if let fix { object["fix"] = .string(fix) }
        return .object(object)
    }
}
