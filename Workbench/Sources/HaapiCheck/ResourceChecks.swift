import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import HaapiRules

/// RFC 9449 §7 at a protected resource (the advertised UserInfo endpoint) with a bound token of the login:
/// the token with a correct proof is accepted; a proof without `ath`, or with the hash of another token, must
/// be refused with 401 and `WWW-Authenticate: DPoP`. A correct request before and after frames the two.
package struct ResourceChecks {
    package let endpoint: URL
    package let http: CheckHTTP
    package let dpop: Dpop

    private func request(_ token: String, ath: String?, nonce: String?) throws -> HTTPRequest {
        let proof = try dpop.createProof(httpMethod: "GET", url: endpoint, nonce: nonce, accessToken: ath)
        return HTTPRequest(
            method: "GET", url: endpoint,
            headers: [("Accept", "application/json"), ("Authorization", "DPoP " + token), ("DPoP", proof)])
    }

    /// A correct request (retried once with the nonce a resource asks for): its answer, nil when none came.
    private func correct(_ token: String, nonce: inout String?) async -> (HTTPRequest, HTTPResponse)? {
        for _ in 0..<2 {
            guard let request = try? request(token, ath: token, nonce: nonce),
                let response = try? await http.send(request)
            else { return nil }
            let asked = response.header("WWW-Authenticate")?.contains("use_dpop_nonce") == true
            if let offered = response.header("DPoP-Nonce") { nonce = offered }
            if response.statusCode == 401, asked, response.header("DPoP-Nonce") != nil { continue }
            return (request, response)
        }
        return nil
    }

    package func run(_ token: String, _ report: inout [CheckFinding]) async {
        var nonce: String?
        guard let before = await correct(token, nonce: &nonce), before.1.statusCode == 200 else {
            report.append(
                CheckFinding(
                    id: "hygiene.resource-unusable", group: .hygiene, severity: .info,
                    title: "UserInfo did not accept the login's bound token with a correct proof, so ath was not tried",
                    sent: nil, received: nil, reference: "RFC 9449 §7.1"))
            return
        }
        let attacks: [(rule: Rule, what: String, ath: String?)] = [
            (.dpopAthMissing, "a proof without ath at UserInfo", nil),
            (.dpopAthMismatch, "a proof whose ath is the hash of another token", token + "-other"),
        ]
        var verdicts: [(index: Int, verdict: RefusalVerdict)] = []
        for attack in attacks {
            var response: HTTPResponse?
            var failure: String?
            let sent = try? request(token, ath: attack.ath, nonce: nonce)
            if let sent {
                do { response = try await http.send(sent) } catch { failure = "\(error)" }
            }
            if let offered = response?.header("DPoP-Nonce") { nonce = offered }
            let verdict = RefusalVerdict.of(response, failure: failure, resource: true)
            verdicts.append((report.count, verdict))
            report.append(
                verdict.finding(
                    rule: attack.rule, group: .hygiene, what: attack.what, exchange: sent.map { ($0, response) },
                    note: attack.what))
        }
        let after = await correct(token, nonce: &nonce)
        guard after?.1.statusCode != 200 else { return }
        let answer = after.map { CheckHTTP.line($0.1) } ?? "no answer"
        for (index, verdict) in verdicts where verdict != .accepted {
            report[index].demote(to: "the correct request sent after it failed too (\(answer))")
        }
    }
}
