import Foundation
import HaapiDriver
import Passkeys

extension DevServer {
    /// Verifies a registration for `username` and stores the credential. Used by the web-app RP and the
    /// HAAPI passkeys authenticator alike.
    func registerPasskey(_ response: RegistrationResponse, challenge: Data, username: String, userHandle: Data) throws(WebAuthnError) -> StoredPasskey {
        let verified = try relyingPartyVerifier.verifyRegistration(response, expectedChallenge: challenge)
        let id = Base64URL.encode(verified.credentialId)
        guard (try? store.passkey(id: id)) == nil else { throw .verificationFailed("the credential is already registered") }
        let passkey = StoredPasskey(credentialId: id, username: username, userHandle: userHandle, publicKey: verified.publicKey.encoded,
                                    signCount: verified.signCount)
        do { try store.insertPasskey(passkey, now: clock()) } catch { throw .storage("\(error)") }
        return passkey
    }

    /// Verifies a sign-in: a known credential, the account it names (a `userHandle`, when sent, must be the
    /// credential's own), the signature, and a counter that moves forward (stored with compare-and-set).
    func verifyPasskeyAssertion(_ response: AuthenticationResponse, challenge: Data) throws(WebAuthnError) -> StoredPasskey {
        guard let stored = try? store.passkey(id: Base64URL.encode(response.credentialId)) else { throw .verificationFailed("unknown credential") }
        if let handle = response.userHandle, handle != stored.userHandle { throw .verificationFailed("the credential belongs to another user") }
        let keyCBOR: CBORValue
        do { keyCBOR = try CBORDecoder().decode(stored.publicKey) } catch { throw .cbor(error) }
        let count = try relyingPartyVerifier.verifyAuthentication(response, expectedChallenge: challenge, publicKey: try COSEKey(cbor: keyCBOR),
                                                                  storedSignCount: stored.signCount)
        guard (try? store.advancePasskeyCounter(id: stored.credentialId, from: stored.signCount, to: count)) == true else {
            throw .verificationFailed("the signature counter did not advance")
        }
        return stored
    }
}
