import AuthenticationServices
import HaapiUI
import SwiftUI
import UIKit

/// Seed 004's flow at launch: a silent sign-in with a passkey this device already has for the configured
/// domain (`PASSKEY_DOMAIN`, in the app's `webcredentials:` entitlement and served by `haapi serve` with
/// `associatedApps` and `passkeys.rpId` set to it). Nothing is shown when there is none: the HAAPI flow
/// (the "Sign in" button) is the way in then.
@MainActor
final class PasskeyLaunchSignIn: ObservableObject {
    @Published var signedInAs: String?
    @Published var note: String?

    /// The web app's address: `https://<PASSKEY_DOMAIN>`, from the Info.plist key the project sets.
    static var domain: String? {
        (Bundle.main.object(forInfoDictionaryKey: "PasskeyDomain") as? String).flatMap { $0.isEmpty ? nil : $0 }
    }

    func attempt() async {
        guard #available(iOS 16.0, *), let domain = Self.domain, let base = URL(string: "https://" + domain) else {
            return
        }
        let authenticator = PlatformAuthenticator(kind: .platform, immediatelyAvailableOnly: true) {
            UIApplication.shared.connectedScenes.compactMap { ($0 as? UIWindowScene)?.keyWindow }.first
                ?? ASPresentationAnchor()
        }
        let manager = AccountManager(client: RelyingPartyClient(baseURL: base), authenticator: authenticator)
        do {
            signedInAs = try await manager.signIn().userName
        } catch {
            // No passkey for the domain on this device (or the user dismissed): stay quiet, as seed 004 does.
            note = "No passkey sign-in at launch: \(error)"
        }
    }
}
