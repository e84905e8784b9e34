import Foundation
import HaapiDriver
import Passkeys

/// What a verified registration is stored into.
enum PasskeyOwner {
    /// An account the caller has proven it owns (password, RP session, Authentication Hub flow).
    case existingAccount(String)
    /// A new passkey-only account, created with the credential in one transaction.
    case newAccount(username: String)
}

/// Passkey registration and sign-in checks against the server's RP ID and origin, shared by the web-app RP,
/// the HAAPI passkeys authenticator and the Authentication Hub.
protocol PasskeyStoring: RelyingPartyNaming {
    var store: ServerStore { get }
    var clock: @Sendable () -> Date { get }
}

extension PasskeyStoring {
    var relyingPartyVerifier: RelyingPartyVerifier {
        RelyingPartyVerifier(rpId: relyingPartyID, origins: Set(relyingPartyOrigins), requireUserVerification: true)
    }

    /// Verifies a registration and stores the credential for `owner`. Used by the web-app RP, the HAAPI
    /// passkeys authenticator and the Authentication Hub alike; none of them can attach a credential to an
    /// account whose owner did not prove themselves first.
    func registerPasskey(
        _ response: RegistrationResponse, challenge: Data, owner: PasskeyOwner, userHandle: Data
    ) throws(WebAuthnError) -> StoredPasskey {
        let verified = try relyingPartyVerifier.verifyRegistration(response, expectedChallenge: challenge)
        let id = Base64URL.encode(verified.credentialID)
        guard (try? store.passkey(id: id)) == nil else {
            throw .verificationFailed("the credential is already registered")
        }
        let username: String
        switch owner {
        case .existingAccount(let name), .newAccount(let name): username = name
        }
        let passkey = StoredPasskey(
            credentialID: id, username: username, userHandle: userHandle, publicKey: verified.publicKey.encoded,
            signCount: verified.signCount)
        do {
            switch owner {
            case .existingAccount:
                guard try store.insertPasskey(passkey, now: clock()) else {
                    throw WebAuthnError.verificationFailed("the account does not exist")
                }
            case .newAccount:
                let account = StoredUser(
                    username: username, passwordHash: PasswordHasher.noPassword, email: nil, name: nil)
                guard case .success = try store.insertUser(account, withPasskey: passkey, now: clock()) else {
                    throw WebAuthnError.verificationFailed("User already registered")
                }
            }
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw .storage("\(error)")
        }
        return passkey
    }

    /// Verifies a sign-in: a known credential whose account it may sign in to, the account it names (a
    /// `userHandle`, when sent, must be the credential's own), the signature, and a counter that moves
    /// forward (stored with compare-and-set).
    func verifyPasskeyAssertion(
        _ response: AuthenticationResponse, challenge: Data
    ) throws(WebAuthnError) -> StoredPasskey {
        guard let stored = try? store.passkey(id: Base64URL.encode(response.credentialID)) else {
            throw .verificationFailed("unknown credential")
        }
        if let handle = response.userHandle, handle != stored.userHandle {
            throw .verificationFailed("the credential belongs to another user")
        }
        guard (try? store.passkeyOwnsAccount(stored)) == true else { throw .verificationFailed("unknown credential") }
        let keyCBOR: CBORValue
        do { keyCBOR = try CBORDecoder().decode(stored.publicKey) } catch { throw .cbor(error) }
        let count = try relyingPartyVerifier.verifyAuthentication(
            response, expectedChallenge: challenge, publicKey: try COSEKey(cbor: keyCBOR),
            storedSignCount: stored.signCount)
        guard (try? store.advancePasskeyCounter(id: stored.credentialID, from: stored.signCount, to: count)) == true
        else {
            throw .verificationFailed("the signature counter did not advance")
        }
        return stored
    }
}
