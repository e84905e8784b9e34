import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules

/// What an answer to a request that must be refused shows. Only the refusal the specification names counts as
/// one: anything else is said for what it is, and "could not tell" is an answer, never a pass.
package enum RefusalVerdict: Equatable {
    /// Refused as RFC 9449 says: 400 `invalid_dpop_proof` / `use_dpop_nonce` at the token endpoint, 401 with
    /// `WWW-Authenticate: DPoP error=…` at a resource, or (a server that answers otherwise) a 4xx whose
    /// error names DPoP.
    case refused
    /// A 4xx that does not name DPoP: the request was refused, but maybe before its proof was looked at.
    case refusedOtherwise(String)
    /// The request succeeded.
    case accepted
    /// A 5xx, a redirect, a timeout or a dropped connection: nothing can be concluded.
    case inconclusive(String)

    /// The verdict on `response` (nil with `failure` when no answer came). `resource`: the request went to a
    /// protected resource (a refusal is 401 with a DPoP challenge) rather than the token endpoint.
    package static func of(_ response: HTTPResponse?, failure: String? = nil, resource: Bool = false) -> RefusalVerdict
    {
        guard let response else { return .inconclusive(failure.map { "no answer: \($0)" } ?? "no answer") }
        let status = response.statusCode
        if (200..<300).contains(status) { return .accepted }
        let body = (try? JSONParser().parse(response.body))?.objectValue
        let error = body?["error"]?.stringValue
        let words = [String(status), error].compactMap { $0 }.joined(separator: " ")
        guard (400..<500).contains(status) else { return .inconclusive(words) }
        let challenge = response.header("WWW-Authenticate") ?? ""
        if resource {
            if status == 401, challenge.lowercased().hasPrefix("dpop"), challenge.contains("error=") { return .refused }
        } else if status == 400, error == "invalid_dpop_proof" || error == "use_dpop_nonce" {
            return .refused
        }
        let named = [error, body?["error_description"]?.stringValue, challenge].compactMap { $0 }.joined(separator: " ")
        if named.lowercased().contains("dpop") { return .refused }
        return .refusedOtherwise(words)
    }

    /// The finding for a request that had to be refused, in words a person says: `what` is the request
    /// ("a replayed proof").
    package func finding(
        rule: Rule, group: CheckGroup, what: String, exchange: (HTTPRequest, HTTPResponse?)?, note: String
    ) -> CheckFinding {
        let sentence = what.prefix(1).uppercased() + what.dropFirst()
        let (severity, title): (CheckFinding.Severity, String) =
            switch self {
            case .refused: (.pass, "\(sentence) was refused")
            case .accepted: (.error, "\(sentence) was accepted")
            case .refusedOtherwise(let answer):
                (
                    .info,
                    "\(sentence) was refused for another reason (\(answer)), so whether the proof was checked cannot be told"
                )
            case .inconclusive(let answer): (.warning, "Inconclusive: \(what) got \(answer)")
            }
        var finding = CheckFinding(
            id: rule.id, group: group, severity: severity, title: title,
            sent: exchange.map { CheckHTTP.line($0.0, note) }, received: exchange?.1.map { CheckHTTP.line($0) },
            reference: rule.entry.reference)
        if case .inconclusive = self {
            finding.fix = "run the check again when the server answers; a 5xx or a dropped connection proves nothing"
        }
        return finding
    }
}
