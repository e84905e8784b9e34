import Foundation
import HaapiSdk

/// The HAAPI group: the client's attestation (or its credentials, for a client without one) gives a HAAPI
/// token, the authorize request is answered with `application/vnd.auth+json`, and the steps up to the
/// first form decode into typed steps whose actions stay on the server's origin. Run through the SDK
/// itself, over the run's budgeted transport.
struct HaapiChecks {
    let client: CheckClient

    func run(_ report: inout [CheckFinding]) async {
        func add(
            _ id: String, _ severity: CheckFinding.Severity, _ title: String, reference: String, fix: String? = nil
        ) {
            report.append(
                CheckFinding(id: id, group: .haapi, severity: severity, title: title, reference: reference, fix: fix))
        }
        let attests = client.attests
        let clientID = client.clientID
        let redirectURI = client.redirectURI
        let discovered = client.discovered
        let configuration = client.configuration()
        let manager: HaapiManager
        do { manager = try HaapiManager(haapiConfiguration: configuration) } catch {
            add("haapi.configuration", .error, "The HAAPI client could not be set up: \(error)", reference: "seed 000")
            return
        }
        defer { Task { await manager.close() } }
        do {
            _ = try await manager.tokenManager.getHaapiTokenAsync()
            add(
                "haapi.token", .pass,
                attests
                    ? "A HAAPI token was obtained with the software attestation"
                    : "A HAAPI token was obtained with the client's credentials",
                reference: "HAAPI: client attestation")
        } catch {
            if case .attestationRefusedByServer(let cause as HaapiError) = error,
                case .invalidStatusCode(let status) = cause,
                [404, 405].contains(status)
            {
                add(
                    "haapi.absent", .info,
                    "The server has no HAAPI attestation endpoint (\(discovered.tokenEndpoint.path)/cat answered \(status)): it is not a HAAPI server, or HAAPI is off",
                    reference: "HAAPI: client attestation",
                    fix:
                        "enable the HAAPI capability (attestation) for client \(clientID), if this server should speak HAAPI"
                )
            } else {
                add(
                    "haapi.token-refused", .error, "No HAAPI token: \(error.errorDescription)",
                    reference: "HAAPI: client attestation",
                    fix: attests
                        ? "allow client \(clientID) a development attestation policy, or run haapi check with the client's secret"
                        : "enable the HAAPI capability on client \(clientID)")
            }
            return
        }
        var result = await manager.start()
        var steps: [String] = []
        for _ in 0..<4 {
            switch result {
            case .representation(let step):
                steps.append(step.type.rawValue)
                if let selector = step as? AuthenticatorSelectorStep, let first = selector.authenticators.first {
                    result = await manager.submitForm(first.action.model)
                    continue
                }
                add(
                    "haapi.steps", .pass,
                    "The authorize request is answered with HAAPI steps that decode: " + steps.joined(separator: " → "),
                    reference: "HAAPI: representations")
                if !(step is InteractiveFormStep) {
                    add(
                        "haapi.no-form", .info, "The first steps lead to \(step.type.rawValue), not a form",
                        reference: "HAAPI: representations")
                }
                return
            case .problem(let problem):
                add(
                    "haapi.problem", .error,
                    "The flow answered a problem: \(problem.type.rawValue) \(problem.title?.description ?? "")",
                    reference: "HAAPI: problems",
                    fix: "check client \(clientID)'s redirect URI (\(redirectURI)), scopes and authenticators")
                return
            case .error(let error):
                let words = (error as? HaapiError)?.errorDescription ?? "\(error)"
                add(
                    "haapi.authorize-failed", .error, "The authorize request did not give a HAAPI step: \(words)",
                    reference: "HAAPI: representations",
                    fix:
                        "answer HAAPI requests (Accept: application/vnd.auth+json) with representations on the issuer's origin"
                )
                return
            }
        }
        add(
            "haapi.steps", .pass, "HAAPI steps decode: " + steps.joined(separator: " → "),
            reference: "HAAPI: representations")
    }
}
