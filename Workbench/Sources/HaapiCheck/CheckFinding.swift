import Foundation
@_spi(Tooling) import HaapiModel
import HaapiRules

/// The groups of checks `haapi check` runs, in order.
package enum CheckGroup: String, CaseIterable, Sendable {
    case discovery, dpop, haapi, hygiene
}

/// One result of a check: what was checked, what was sent and what came back (secrets masked), how bad it
/// is, where the rule is written and how to fix it. Passed checks are kept too (severity `pass`), so the
/// report says what was tried, not only what failed.
package struct CheckFinding: Sendable {
    package enum Severity: String, Sendable, Comparable {
        case error, warning, info, pass

        private var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .info: 2
            case .pass: 3
            }
        }

        package static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    /// The rule's id (``Rule``, the same the dev server's refusals name) when the finding is about one
    /// of the catalogue's rules, whatever its outcome; else an id of the check's own (``outcomeIDs``).
    package let id: String
    package let group: CheckGroup
    package let severity: Severity
    /// What was found, in one sentence.
    package let title: String
    /// The request, as a line (method, path, what was special about it).
    package var sent: String?
    /// The answer, as a line (status, OAuth error, the relevant header).
    package var received: String?
    /// The specification section the check reads: the catalogue's, for a rule.
    package let reference: String
    /// What to change on the server, in one line; nil for passes and information. For a rule, the
    /// catalogue's server fix unless the check has a more specific one.
    package var fix: String?

    /// The catalogue rule the finding is about.
    package var rule: Rule? { Rule(rawValue: id) }

    package init(
        id: String, group: CheckGroup, severity: Severity, title: String, sent: String? = nil,
        received: String? = nil, reference: String, fix: String? = nil
    ) {
        self.id = id
        self.group = group
        self.severity = severity
        self.title = title
        self.sent = sent
        self.received = received
        let rule = Rule(rawValue: id)
        self.reference = rule?.entry.reference ?? reference
        let red = severity == .error || severity == .warning
        self.fix = red ? fix ?? rule?.entry.serverFix : fix
    }

    /// The ids of findings that are not about one rule: what was found, skipped or could not be tried.
    /// A finding id is one of these or a rule's (`CheckCatalogueTests` fails on any other).
    package static let outcomeIDs: Set<String> = [
        "discovery.found", "discovery.endpoints-served", "discovery.jwks", "discovery.jwks-unreachable",
        "discovery.skipped", "dpop.no-grant", "dpop.not-oauth", "dpop.nonce-header-missing", "dpop.fresh-accepted",
        "dpop.fresh-refused", "dpop.binding-opaque", "dpop.nonce-rotated", "dpop.nonce-rotation-unseen",
        "dpop.skipped", "dpop.control-failed", "haapi.absent", "haapi.configuration", "haapi.token",
        "haapi.token-refused",
        "haapi.unknown-parts", "haapi.parts-known", "haapi.session-header", "haapi.session-header-unused",
        "haapi.no-session-header", "haapi.session-unchecked", "haapi.steps", "haapi.no-form", "haapi.problem",
        "haapi.authorize-failed", "haapi.skipped", "hygiene.no-login", "hygiene.configuration",
        "hygiene.login-failed", "hygiene.no-refresh-token", "hygiene.refresh-refused", "hygiene.no-introspection",
        "hygiene.no-revocation", "hygiene.resource-unusable", "hygiene.skipped", "check.budget",
    ]

    /// This finding made inconclusive by what happened after it (`reason`): a pass or an information
    /// becomes a warning that says so; an error (something accepted that must not be) stays what it is.
    package mutating func demote(to reason: String) {
        guard severity == .pass || severity == .info else { return }
        self = CheckFinding(
            id: id, group: group, severity: .warning, title: "Inconclusive: \(title), but \(reason)", sent: sent,
            received: received, reference: reference,
            fix: "run the check again when the server answers correct requests")
    }

    package var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "group": .string(group.rawValue), "severity": .string(severity.rawValue),
            "title": .string(title), "reference": .string(reference),
        ]
        if let sent { object["sent"] = .string(sent) }
        if let received { object["received"] = .string(received) }
        if let fix { object["fix"] = .string(fix) }
        if let rule { object["ruleTitle"] = .string(rule.entry.title) }
        return .object(object)
    }
}
