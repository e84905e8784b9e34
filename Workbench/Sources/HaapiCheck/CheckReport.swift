import Foundation
@_spi(Tooling) import HaapiModel

/// The run's findings as a terminal table or one JSON object.
package struct CheckReport {
    package init(server: String, findings: [CheckFinding], requests: Int, budget: Int) {
        self.server = server
        self.findings = findings
        self.requests = requests
        self.budget = budget
    }

    package let server: String
    package let findings: [CheckFinding]
    package let requests: Int
    package let budget: Int

    package var errors: Int { findings.filter { $0.severity == .error }.count }

    package func summary(of group: CheckGroup) -> String {
        let ofGroup = findings.filter { $0.group == group }
        let counts = [CheckFinding.Severity.pass, .error, .warning, .info].compactMap { severity -> String? in
            let count = ofGroup.filter { $0.severity == severity }.count
            guard count > 0 else { return nil }
            return "\(count) " + (severity == .pass ? "passed" : severity.rawValue + (count == 1 ? "" : "s"))
        }
        return group.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0) + "  "
            + (counts.isEmpty ? "not run" : counts.joined(separator: ", "))
    }

    package func text(groups: [CheckGroup]) -> String {
        var lines = groups.map(summary(of:))
        for finding in findings.filter({ $0.severity != .pass }).sorted(by: { $0.severity < $1.severity }) {
            lines.append("")
            lines.append("\(finding.severity.rawValue.uppercased())  \(finding.id)  \(finding.title)")
            if let sent = finding.sent { lines.append("  sent:      " + sent) }
            if let received = finding.received { lines.append("  received:  " + received) }
            lines.append("  reference: " + finding.reference)
            if let fix = finding.fix { lines.append("  fix:       " + fix) }
        }
        let warnings = findings.filter { $0.severity == .warning }.count
        lines.append("")
        lines.append(
            "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"); \(requests) of at most \(budget) requests"
        )
        return lines.joined(separator: "\n")
    }

    package var json: JSONValue {
        [
            "server": .string(server), "requests": .number(JSONNumber(requests)), "budget": .number(JSONNumber(budget)),
            "errors": .number(JSONNumber(errors)), "findings": .array(findings.map(\.json)),
        ]
    }
}
