import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys

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
    ) async throws(WebAuthnError) -> StoredPasskey {
        let verified = try relyingPartyVerifier.verifyRegistration(response, expectedChallenge: challenge)
        let id = Base64URL.encode(verified.credentialID)
        guard try await stored({ try await store.passkey(id: id) }) == nil else {
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
                guard try await store.insertPasskey(passkey, now: clock()) else {
                    throw WebAuthnError.verificationFailed("the account does not exist")
                }
            case .newAccount:
                let account = StoredUser(
                    username: username, passwordHash: PasswordHasher.noPassword, email: nil, name: nil)
                guard case .success = try await store.insertUser(account, withPasskey: passkey, now: clock()) else {
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
    ) async throws(WebAuthnError) -> StoredPasskey {
        let id = Base64URL.encode(response.credentialID)
        guard let stored = try await stored({ try await store.passkey(id: id) }) else {
            throw .verificationFailed("unknown credential")
        }
        if let handle = response.userHandle, handle != stored.userHandle {
            throw .verificationFailed("the credential belongs to another user")
        }
        guard try await self.stored({ try await store.passkeyOwnsAccount(stored) }) else {
            throw .verificationFailed("unknown credential")
        }
        let keyCBOR: CBORValue
        do { keyCBOR = try CBORDecoder().decode(stored.publicKey) } catch { throw .cbor(error) }
        let count = try relyingPartyVerifier.verifyAuthentication(
            response, expectedChallenge: challenge, publicKey: try COSEKey(cbor: keyCBOR),
            storedSignCount: stored.signCount)
        guard
            try await self.stored({
                try await store.advancePasskeyCounter(id: stored.credentialID, from: stored.signCount, to: count)
            })
        else {
            throw .verificationFailed("the signature counter did not advance")
        }
        return stored
    }

    /// A database call: its failure is `.storage` (a server error), never "unknown credential".
    private func stored<T>(_ operation: () async throws -> T) async throws(WebAuthnError) -> T {
        do { return try await operation() } catch { throw .storage("\(error)") }
    }
}
