import HaapiUI
import SwiftUI

/// Where the flow's outcome lands: tokens or an error, for the view to show.
@MainActor
final class SignInState: ObservableObject, HaapiFlowResult {
    @Published var isSigningIn = false
    @Published var tokens: OAuthTokenModel?
    @Published var message: String?

    // HaapiFlowResult is a main-actor protocol: the flow calls these on the main actor.
    func didReceiveOAuthTokenModel(_ oAuthTokenModel: OAuthTokenModel) {
        tokens = oAuthTokenModel
        isSigningIn = false
    }

    func didReceiveError(_ error: Error) {
        message = error.localizedDescription
        isSigningIn = false
    }
}

struct ContentView: View {
    @StateObject private var state = SignInState()
    @StateObject private var passkey = PasskeyLaunchSignIn()
    /// `haapi serve`'s address as the simulator sees it (the Mac's loopback).
    @AppStorage("server") private var server = "http://localhost:8080"

    var body: some View {
        NavigationView {
            Form {
                Section("Dev server") {
                    TextField("URL", text: $server).textInputAutocapitalization(.never).autocorrectionDisabled()
                    Text(
                        "Run `swift run --package-path Workbench haapi serve` on this Mac; sign in as demouser / Password1."
                    ).font(.footnote)
                }
                if let name = passkey.signedInAs {
                    Section("Passkey") { Text("Signed in with a passkey as \(name)") }
                }
                Section {
                    Button("Sign in") { state.isSigningIn = true }.disabled(application == nil)
                }
                if let tokens = state.tokens {
                    Section("Signed in") {
                        Text(tokens.idTokenClaims?["sub"]?.stringValue ?? "signed in")
                        Text("\(tokens)").font(.caption.monospaced())
                    }
                }
                if let message = state.message {
                    Section("Error") { Text(message).foregroundColor(.red) }
                }
            }
            .navigationTitle("HAAPI Demo")
            // Seed 004: try a passkey this device already has, silently; the HAAPI flow otherwise.
            .task { await passkey.attempt() }
            .sheet(isPresented: $state.isSigningIn) {
                if let application {
                    HaapiFlow.start(
                        state, haapiUIKitApplication: application, haapiDeepLinkManageable: HaapiDeepLinkManager.shared)
                }
            }
        }
    }

    /// The UI kit application for the entered server; the dev server's `software` attestation policy
    /// stands in for App Attest, which the simulator does not have.
    private var application: HaapiUIKitApplication? {
        guard let base = URL(string: server) else { return nil }
        let configuration = HaapiUIKitConfigurationBuilder(
            clientId: "haapi-demo", baseUrl: base, tokenEndpointUrl: base.appendingPathComponent("oauth/token"),
            authorizationEndpointUrl: base.appendingPathComponent("oauth/authorize"), appRedirect: "app://haapi"
        )
        .setRevocationEndpointURL(base.appendingPathComponent("oauth/revoke"))
        .setScopes(["openid", "profile", "email"])
        .setAttester(SoftwareAttester())
        .build()
        return HaapiUIKitApplicationBuilder(haapiUIKitConfiguration: configuration).build()
    }
}
