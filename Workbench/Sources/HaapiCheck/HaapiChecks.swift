import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
@_spi(Tooling) import HaapiSdk

/// The HAAPI group: the client's attestation (or its credentials, for a client without one) gives a HAAPI
/// token, the authorize request is answered with `application/vnd.auth+json`, and the steps up to the
/// first form decode into typed steps whose actions stay on the server's origin. Run through the SDK
/// itself, over the run's budgeted transport.
package struct HaapiChecks {
    package init(client: CheckClient) {
        self.client = client
    }

    package let client: CheckClient

    package func run(_ report: inout [CheckFinding]) async {
        func add(
            _ id: String, _ severity: CheckFinding.Severity, _ title: String, reference: String, fix: String? = nil
        ) {
            report.append(
                CheckFinding(id: id, group: .haapi, severity: severity, title: title, reference: reference, fix: fix))
        }
        let attests = client.attests
        let clientID = client.clientID
        let traffic = HaapiTraffic()
        let configuration = client.configuration(traffic: traffic)
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
            // No token: a HAAPI server with this client misconfigured, or no HAAPI server at all. The authorize
            // endpoint tells them apart: a HAAPI server asks a request without a token for one (401 with
            // `WWW-Authenticate: DPoP`) or answers in HAAPI's media types.
            if let probe = await probeAuthorize(), !probe.speaksHaapi {
                report.append(
                    CheckFinding(
                        id: "haapi.absent", group: .haapi, severity: .info,
                        title:
                            "Not a HAAPI server: no HAAPI token for \(clientID), and the authorize endpoint answers a HAAPI request without HAAPI",
                        sent: CheckHTTP.line(probe.request, "Accept: application/vnd.auth+json, no token"),
                        received: probe.line, reference: "HAAPI: client attestation",
                        fix:
                            "none needed if this server is not meant to speak HAAPI; otherwise enable its HAAPI capability"
                    ))
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
        guard let walked = await steps(manager, add: add) else { return }
        var audit = RepresentationAudit()
        for body in await traffic.representations { audit.read(body, server: client.server) }
        if audit.unknown.isEmpty {
            add(
                "haapi.parts-known", .pass, "Every representation part is one the SDK knows",
                reference: "HAAPI: representations")
        } else {
            add(
                "haapi.unknown-parts", .info,
                "Parts the SDK does not know by name (decoded as generic): " + audit.unknown.joined(separator: ", "),
                reference: "HAAPI: representations")
        }
        if audit.offOrigin.isEmpty {
            add(
                "haapi.actions-off-origin", .pass,
                "Every action and link stays on \(DiscoveryChecks.origin(client.server))",
                reference: "HAAPI: representations")
        } else {
            add(
                "haapi.actions-off-origin", .error,
                "Actions or links leave the server's origin: " + audit.offOrigin.prefix(3).joined(separator: ", "),
                reference: "HAAPI: representations",
                fix: "serve every HAAPI action from the issuer's origin; clients refuse to send their token elsewhere")
        }
        if await traffic.sessionStarted {
            add(
                await traffic.sessionReturned ? "haapi.session-header" : "haapi.session-header-unused", .pass,
                "The flow's session travels in Set-Session-Id / Session-Id headers", reference: "HAAPI: Session-Id")
            await sessionHonoured(manager, resubmitting: walked.choice, add: add)
        } else {
            add(
                "haapi.no-session-header", .info,
                "No Set-Session-Id: the flow's session is kept some other way (a cookie, or the HAAPI token)",
                reference: "HAAPI: Session-Id")
        }
    }

    /// The authenticator choice sent again without `Session-Id`: a server that keeps flows by that header
    /// refuses it; one that answers the next step anyway keeps the flow some other way (or not at all).
    private func sessionHonoured(
        _ manager: HaapiManager, resubmitting selected: FormActionModel?,
        add: (String, CheckFinding.Severity, String, String, String?) -> Void
    ) async {
        guard let selected else {
            add(
                "haapi.session-unchecked", .info,
                "The flow began with a form, so no step could be sent again without Session-Id",
                "HAAPI: Session-Id", nil)
            return
        }
        await manager.forgetSession()
        switch await manager.submitForm(selected) {
        case .representation(let step):
            add(
                "haapi.session-missing", .warning,
                "The authenticator choice sent again without Session-Id was answered with a \(step.type.rawValue) step",
                "HAAPI: Session-Id",
                "continue a flow only for requests that carry its Session-Id (and the DPoP key that started it)")
        case .problem, .error:
            add(
                "haapi.session-missing", .pass, "A step sent without Session-Id is refused", "HAAPI: Session-Id",
                nil)
        }
    }

    /// One authorization request as a HAAPI client would send it, without its token: what the answer says
    /// about the server. Nil when the request could not be sent.
    private func probeAuthorize() async -> (request: HTTPRequest, line: String, speaksHaapi: Bool)? {
        guard
            var components = URLComponents(
                url: client.discovered.authorizationEndpoint, resolvingAgainstBaseURL: false)
        else { return nil }
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "client_id", value: client.clientID),
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "redirect_uri", value: client.redirectURI),
            ]
        guard let url = components.url else { return nil }
        let request = HTTPRequest(method: "GET", url: url, headers: [("Accept", MimeTypes.haapi)])
        guard let response = try? await client.http.send(request) else { return nil }
        let type = response.header("Content-Type")?.lowercased() ?? ""
        let challenge = response.header("WWW-Authenticate")?.lowercased() ?? ""
        let speaks =
            type.hasPrefix(MimeTypes.haapi) || type.hasPrefix(MimeTypes.problem)
            || (response.statusCode == 401 && challenge.hasPrefix("dpop"))
        let line =
            "\(response.statusCode)" + (type.isEmpty ? "" : " " + type)
            + (response.header("Location") != nil ? " (a redirect to a web page)" : "")
        return (request, line, speaks)
    }

    /// The authorize request and the steps up to the first form (choosing the first authenticator). Nil when
    /// they did not decode, which is reported here; else the authenticator choice made on the way, if any.
    private func steps(
        _ manager: HaapiManager, add: (String, CheckFinding.Severity, String, String, String?) -> Void
    ) async -> Walked? {
        let clientID = client.clientID
        let redirectURI = client.redirectURI
        var result = await manager.start()
        var steps: [String] = []
        var choice: FormActionModel?
        for _ in 0..<4 {
            switch result {
            case .representation(let step):
                steps.append(step.type.rawValue)
                if let selector = step as? AuthenticatorSelectorStep, let first = selector.authenticators.first {
                    choice = choice ?? first.action.model
                    result = await manager.submitForm(first.action.model)
                    continue
                }
                add(
                    "haapi.steps", .pass,
                    "The authorize request is answered with HAAPI steps that decode: " + steps.joined(separator: " → "),
                    "HAAPI: representations", nil)
                if !(step is InteractiveFormStep) {
                    add(
                        "haapi.no-form", .info, "The first steps lead to \(step.type.rawValue), not a form",
                        "HAAPI: representations", nil)
                }
                return Walked(choice: choice)
            case .problem(let problem):
                add(
                    "haapi.problem", .error,
                    "The flow answered a problem: \(problem.type.rawValue) \(problem.title?.description ?? "")",
                    "HAAPI: problems",
                    "check client \(clientID)'s redirect URI (\(redirectURI)), scopes and authenticators")
                return nil
            case .error(let error):
                let words = (error as? HaapiError)?.errorDescription ?? "\(error)"
                add(
                    "haapi.authorize-failed", .error, "The authorize request did not give a HAAPI step: \(words)",
                    "HAAPI: representations",
                    "answer HAAPI requests (Accept: application/vnd.auth+json) with representations on the issuer's origin"
                )
                return nil
            }
        }
        add(
            "haapi.steps", .pass, "HAAPI steps decode: " + steps.joined(separator: " → "), "HAAPI: representations", nil
        )
        return Walked(choice: choice)
    }

    /// What the walk to the first form did: the authenticator it chose, when a selector came first.
    private struct Walked {
        let choice: FormActionModel?
    }
}
