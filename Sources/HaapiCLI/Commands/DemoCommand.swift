import ArgumentParser
import Foundation
import HaapiDriver

/// The quick start. Until the dev server lands, it shows offline what the toolkit does to one login step.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "The quick start: a guided tour of an API-driven login.",
        discussion: """
            Coming next: the embedded dev identity server started in-process and an interactive login in \
            the terminal (the SDK and UI milestones). Today the demo runs offline: it decodes a login \
            step, builds the form submission and signs the DPoP proof that would go with it. The dev \
            server itself already runs: `haapi serve`.
            """
    )

    static let sampleStep = """
        {"type":"authentication-step","metadata":{"viewName":"authenticator/html-form/authenticate/get"},
         "actions":[{"template":"form","kind":"login","title":"Sign in","model":{"href":"/authn/authenticate/password",
           "method":"POST","actionTitle":"Sign in","fields":[{"name":"userName","type":"username","label":"Username"},
           {"name":"password","type":"password","label":"Password"},{"name":"_csrf","type":"hidden","value":"c2VydmVy"}]}}],
         "links":[{"href":"/authn/register","rel":"register-create","title":"Create account"}]}
        """

    func run() throws {
        print("""
            swift-haapi demo
            ────────────────
            The interactive terminal login arrives with the SDK and UI milestones (docs/ARCHITECTURE.md).
            The dev identity server already runs on its own: `swift run haapi serve`. This tour runs offline:

            1. A HAAPI server answers the authorize request with a step like this one, decoded into a typed value:
            """)
        guard let baseURL = URL(string: "http://127.0.0.1:8443/") else { return }
        let response = try HaapiDecoder().decode(Data(Self.sampleStep.utf8))
        print(indent(InspectReport.text(for: response)))

        guard case .representation(let step) = response, let form = (step as? InteractiveFormStep)?.formActions.first else { return }
        let request = try HaapiRequestBuilder.request(
            submitting: form.model, parameters: ["userName": "demouser", "password": "Pass word+1&"], baseURL: baseURL)
        let body = String(decoding: request.body ?? Data(), as: UTF8.self)
        print("\n2. Submitting it with userName=demouser and a password builds this request (the password is masked here):")
        print(indent("\(request.method) \(request.url.absoluteString)\nContent-Type: \(request.headers["Content-Type"] ?? "")\n\n\(maskPassword(in: body))"))

        let key = SoftwareP256SigningKey()
        let proof = try Dpop(key: key).createProof(
            httpMethod: request.method, url: request.url, nonce: "server-nonce", accessToken: "haapi-access-token")
        let parsed = try DPoPProof(parsing: proof)
        print("\n3. Every HAAPI request carries a DPoP proof from a device key (thumbprint \(key.thumbprint)):")
        print(indent("header: \(JSONValue.object(parsed.jws.header).serialized())\nclaims: \(JSONValue.object(parsed.claims).serialized())"))
        print("""

            Try the tools:
              swift run haapi serve                      # the dev identity server on 127.0.0.1:8443
              swift run haapi inspect --json response.json
              swift run haapi dpop --method POST --url https://idp.example/token --key device-key.json
            """)
    }

    private func indent(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "   " + $0 }.joined(separator: "\n")
    }

    private func maskPassword(in body: String) -> String {
        body.split(separator: "&").map { $0.hasPrefix("password=") ? "password=****" : String($0) }.joined(separator: "&")
    }
}
