import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiUI
import Testing

/// The WebAuthn "any device" registration shape (platform / cross-platform options), which the dev server
/// does not send: a scripted server checks that the answer goes into the matching field.
@Suite("Passkeys: any-device registration")
@MainActor
struct AnyDeviceModeTests {
    final class ScriptedServer: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var bodies: [String: Data] = [:]
        let step: String

        init(step: String) { self.step = step }

        func body(for path: String) -> Data? { lock.withLock { bodies[path] } }

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            lock.withLock { bodies[request.url.path] = request.body }
            let json: (String, String)
            switch request.url.path {
            case "/oauth/token/cat":
                json = ("application/json", request.method == "GET" ? #"{"challenge":"c"}"# : #"{"cat":"c"}"#)
            case "/oauth/token":
                json = ("application/json", #"{"access_token":"t","token_type":"DPoP","expires_in":600}"#)
            case "/oauth/authorize": json = ("application/vnd.auth+json", step)
            default: json = ("application/vnd.auth+json", #"{"type":"authentication-step","actions":[]}"#)
            }
            return HTTPResponse(
                statusCode: 200, headers: ["Content-Type": json.0], body: Data(json.1.utf8), url: request.url)
        }
    }

    @Test("platform options are answered in platformCredential, as a JSON body")
    func platformField() async throws {
        let step = """
            {"type":"registration-step","actions":[{"template":"client-operation","kind":"webauthn-registration","model":{
              "name":"webauthn-registration","arguments":{"platformCredentialCreationOptions":{"publicKey":{
                "rp":{"id":"example.com","name":"Example"},"user":{"id":"dXNlcg","name":"user","displayName":"User"},
                "challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","pubKeyCredParams":[{"type":"public-key","alg":-7}]}}},
              "continueActions":[{"template":"form","kind":"continue","model":{"href":"/authn/register/webauthn","method":"POST",
                "type":"application/json","fields":[{"name":"crossPlatformCredential","type":"context"},{"name":"platformCredential","type":"context"}]}}],
              "errorActions":[]}}]}
            """
        let server = ScriptedServer(step: step)
        let base = URL(string: "https://login.example.com")!
        let configuration = HaapiUIKitConfigurationBuilder(
            clientId: "c", baseUrl: base, tokenEndpointUrl: base.appendingPathComponent("oauth/token"),
            authorizationEndpointUrl: base.appendingPathComponent("oauth/authorize"), appRedirect: "app://c"
        )
        .setTransport(server).setAttester(SoftwareAttester()).setTokenBoundConfiguration(
            BoundedTokenConfiguration(keyPairType: .p256)
        )
        .setPasskeyAuthenticator(SoftwareAuthenticator(storage: InMemoryStorage()))
        .build()
        let viewModel = HaapiFlowViewModel(
            haapiUIKitApplication: HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: configuration).build())
        await viewModel.start()
        #expect(await viewModel.performPasskeyOperation())
        let body = try JSONParser().parse(try #require(server.body(for: "/authn/register/webauthn")))
        #expect(body["platformCredential"]?["response"]?["attestationObject"]?.stringValue != nil)
        #expect(body["crossPlatformCredential"] == nil)
        await viewModel.close()
    }
}
