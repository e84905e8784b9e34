import Foundation
@_spi(Tooling) import Passkeys
import Testing

/// Issue 32, item 9: what `PlatformAuthenticator` hands ASAuthorization of an RP's options: the attestation
/// conveyance and the user-verification preference, unknown values ignored as WebAuthn says.
@Suite("Passkeys on Apple: the options' preferences")
struct PlatformRequestPreferencesTests {
    static func creation(attestation: String?, userVerification: String?) -> PublicKeyCredentialCreationOptions {
        PublicKeyCredentialCreationOptions(
            rpId: "login.example.com", rpName: "Example", userID: Data([1]), userName: "alice",
            userDisplayName: "Alice", challenge: Data([2]), userVerification: userVerification,
            attestation: attestation)
    }

    @Test("registration: attestation and user verification pass through; unknown values become the platform default")
    func registration() {
        for attestation in ["none", "indirect", "direct", "enterprise"] {
            for verification in ["required", "preferred", "discouraged"] {
                let preferences = PlatformRequestPreferences(
                    Self.creation(attestation: attestation, userVerification: verification))
                #expect(preferences.attestation == attestation && preferences.userVerification == verification)
            }
        }
        let unknown = PlatformRequestPreferences(Self.creation(attestation: "everything", userVerification: "maybe"))
        #expect(unknown.attestation == nil && unknown.userVerification == nil)
        #expect(PlatformRequestPreferences(Self.creation(attestation: nil, userVerification: nil)).attestation == nil)
    }

    @Test("sign-in: user verification passes through; there is no attestation")
    func signIn() {
        let options = PublicKeyCredentialRequestOptions(
            challenge: Data([3]), rpId: "login.example.com", userVerification: "required")
        #expect(PlatformRequestPreferences(options).userVerification == "required")
        #expect(PlatformRequestPreferences(options).attestation == nil)
    }
}
