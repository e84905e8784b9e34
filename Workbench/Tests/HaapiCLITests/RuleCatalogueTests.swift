import Foundation
import HaapiRules
@_spi(Tooling) import Passkeys
import Testing

@testable import HaapiCLI
@testable import HaapiCheck
@testable import HaapiServer

/// One catalogue for the server's refusals and `haapi check`'s findings: the server names rules by the
/// `Rule` type (a rule the catalogue lacks does not compile); `haapi check` names findings by id, and
/// every id it uses must be a rule's or one of its documented outcome ids.
@Suite("Rule catalogue: one list for the server and haapi check")
struct RuleCatalogueTests {
    /// The repository: the SDK's sources and the docs are at its top, the workbench's under `Workbench/`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Every finding id written in `haapi check`'s sources.
    static func checkIDs() throws -> Set<String> {
        let folders = ["Workbench/Sources/HaapiCheck", "Workbench/Sources/HaapiCLI/Commands"]
        var ids: Set<String> = []
        let pattern = try Regex(#""((?:discovery|dpop|haapi|hygiene|oauth|passkeys|server|check)\.[a-z0-9-]+)""#)
        // Rules named by their case: `Rule.dpopReplay.id`, `rule: .dpopReplay`, `(.dpopAthMissing, …`, `finding(.dpopTokenNotBound, …`: a name that is no rule's
        // case is some other enum's, and ignored.
        let byCase = try Regex(#"(?:Rule|rule: |\(|finding\()\.([a-zA-Z]+)(?![A-Za-z0-9])"#)
        let cases = Dictionary(uniqueKeysWithValues: Rule.allCases.map { ("\($0)", $0.id) })
        for folder in folders {
            let directory = root.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
            where name.hasSuffix(".swift") {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                for match in text.matches(of: pattern) {
                    if let id = match.output[1].substring { ids.insert(String(id)) }
                }
                for match in text.matches(of: byCase) {
                    if let name = match.output[1].substring, let id = cases[String(name)] { ids.insert(id) }
                }
            }
        }
        return ids
    }

    @Test("every id haapi check reports is a rule's or a documented outcome id, and every outcome id is used")
    func checkUsesTheCatalogue() throws {
        let used = try Self.checkIDs()
        let rules = Set(Rule.allCases.map(\.id))
        let unknown = used.subtracting(rules).subtracting(CheckFinding.outcomeIDs)
        // `dpop.skipped` and the like are built as "\(group).skipped"; the literal ones must all be known.
        #expect(unknown.isEmpty, "ids in haapi check that the catalogue lacks: \(unknown.sorted())")
        let stale = CheckFinding.outcomeIDs.subtracting(used).filter { !$0.hasSuffix(".skipped") }
        #expect(stale.isEmpty, "outcome ids no check uses: \(stale.sorted())")
        #expect(CheckFinding.outcomeIDs.isDisjoint(with: rules))
        // The DPoP rules the issue names are all tested by haapi check.
        for rule: Rule in [
            .dpopReplay, .dpopHtmMismatch, .dpopHtuMismatch, .dpopIatWindow, .dpopAlg, .dpopJWK, .dpopTyp,
            .dpopSignature, .dpopAthMissing, .dpopAthMismatch, .clientAuthentication,
        ] {
            #expect(used.contains(rule.id), "haapi check does not test \(rule.id)")
        }
    }

    @Test("a finding about a rule takes the catalogue's reference, and its server fix when it has none of its own")
    func findingsFromTheCatalogue() {
        let finding = CheckFinding(
            id: Rule.dpopReplay.id, group: .dpop, severity: .error, title: "Accepted: a replay", reference: "ignored")
        #expect(finding.rule == .dpopReplay)
        #expect(finding.reference == Rule.dpopReplay.entry.reference)
        #expect(finding.fix == Rule.dpopReplay.entry.serverFix)
        let passed = CheckFinding(
            id: Rule.dpopReplay.id, group: .dpop, severity: .pass, title: "Refused: a replay", reference: "ignored")
        #expect(passed.fix == nil && passed.json["ruleTitle"]?.stringValue == Rule.dpopReplay.entry.title)
    }

    @Test("every rule has an id of the form group.name, a title, a section and both fixes, each one sentence")
    func entriesComplete() throws {
        let shape = try Regex("^[a-z]+\\.[a-z0-9-]+$")
        for rule in Rule.allCases {
            let entry = rule.entry
            #expect(rule.id.wholeMatch(of: shape) != nil, "\(rule.id)")
            for text in [entry.title, entry.reference, entry.fix, entry.serverFix] {
                #expect(!text.isEmpty && !text.contains("\n") && text.count < 200, "\(rule.id): \(text)")
            }
            #expect(!entry.fix.hasSuffix(".") && !entry.serverFix.hasSuffix("."), "\(rule.id): one clause, no period")
        }
        // The issue's list, each present.
        for id in [
            "dpop.malformed", "dpop.typ", "dpop.alg", "dpop.jwk", "dpop.signature", "dpop.htm-mismatch",
            "dpop.htu-mismatch", "dpop.iat-window", "dpop.replay", "dpop.nonce-missing", "dpop.nonce-unknown",
            "dpop.nonce-stale", "dpop.ath-missing", "dpop.ath-mismatch", "dpop.cnf-mismatch", "oauth.client-unknown",
            "oauth.client-authentication", "oauth.grant-not-allowed", "oauth.redirect-uri", "oauth.pkce-missing",
            "oauth.pkce-plain", "oauth.pkce-mismatch", "oauth.code-reused", "oauth.code-expired",
            "oauth.refresh-reused", "oauth.refresh-revoked", "oauth.scope", "haapi.token-missing",
            "haapi.attestation-refused", "haapi.session-missing", "haapi.flow-expired", "haapi.invalid-input",
            "passkeys.origin", "passkeys.rp-id", "passkeys.challenge", "passkeys.signature", "passkeys.counter",
        ] {
            #expect(Rule(rawValue: id) != nil, "the catalogue lacks \(id)")
        }
    }

    /// The relying party's refusals are told apart by their words: each sentence the verifier can say about
    /// an origin, the RP ID, the challenge, the signature, the counter or UP/UV maps to its own rule.
    @Test("each passkey verdict of the relying party maps to its rule")
    func passkeyVerdicts() throws {
        let source = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/Passkeys/RelyingParty/RelyingPartyVerifier.swift"),
            encoding: .utf8)
        let pattern = try Regex(#"verificationFailed\(\s*"([^"]*)""#)
        let sentences = source.matches(of: pattern).compactMap { $0.output[1].substring.map(String.init) }
        #expect(sentences.count >= 10, "\(sentences)")
        for rule: Rule in [.passkeyOrigin, .passkeyRPID, .passkeyChallenge, .passkeySignature, .passkeyCounter] {
            #expect(
                sentences.contains { Rule(webAuthn: .verificationFailed($0)) == rule },
                "no verifier sentence maps to \(rule.id)")
        }
    }
}

extension RuleCatalogueTests {
    /// The table docs/DEBUGGING.md shows: one row per rule, as the catalogue has it.
    static var documentedTable: String {
        Rule.allCases.map { rule in
            let entry = rule.entry
            return "| `\(rule.id)` | \(entry.title) | \(entry.reference) | \(entry.fix) |"
        }.joined(separator: "\n")
    }

    @Test("docs/DEBUGGING.md lists every rule with its title, reference and fix, as the catalogue has them")
    func documented() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/DEBUGGING.md"), encoding: .utf8)
        let expected = Self.documentedTable
        #expect(page.contains(expected), "replace the table in docs/DEBUGGING.md with:\n\(expected)")
    }
}

extension RuleCatalogueTests {
    @Test("docs/CHECK.md names every id haapi check reports")
    func checkDocumented() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/CHECK.md"), encoding: .utf8)
        let missing = try Self.checkIDs().filter { !page.contains("`\($0)`") && !$0.hasSuffix(".skipped") }
        #expect(missing.isEmpty, "ids docs/CHECK.md does not list: \(missing.sorted())")
    }
}
