import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver

/// The relying party's checks of what an authenticator returned (WebAuthn §7.1 and §7.2): the client data's
/// type, challenge and origin; the RP ID hash; the UP and UV flags; the attestation ("none", or "packed"
/// self attestation); and, for sign-ins, the signature and the counter. Single use of challenges is the
/// caller's job: it must forget a challenge once it has been offered here.
public struct RelyingPartyVerifier: Sendable {
    /// The relying party's ID; the authenticator data must carry its SHA-256.
    public let rpId: String
    /// The origins the client data may name.
    public let origins: Set<String>
    /// Whether the UV flag is required, not just UP.
    public let requireUserVerification: Bool

    /// A verifier for `rpId`, accepting ceremonies from `origins`.
    public init(rpId: String, origins: Set<String>, requireUserVerification: Bool = false) {
        self.rpId = rpId
        self.origins = origins
        self.requireUserVerification = requireUserVerification
    }

    /// What a verified registration gives the relying party to store.
    public struct VerifiedRegistration: Sendable, Equatable {
        /// The new credential's id.
        public let credentialID: Data
        /// The credential's public key.
        public let publicKey: COSEKey
        /// The signature counter at registration.
        public let signCount: UInt32
        /// Whether the user was verified during registration.
        public let userVerified: Bool
        /// The attestation statement's format (`none`, `packed`, …).
        public let attestationFormat: String
    }

    /// Checks a registration against the challenge the relying party issued: client data type, challenge and origin, RP
    /// ID hash, flags, and the attested credential; returns what to store.
    public func verifyRegistration(
        _ response: RegistrationResponse, expectedChallenge: Data
    ) throws(WebAuthnError) -> VerifiedRegistration {
        let clientData = try CollectedClientData(parsing: response.clientDataJSON)
        try check(clientData, type: "webauthn.create", challenge: expectedChallenge)
        let attestation = try AttestationObject(parsing: response.attestationObject)
        let authData = attestation.authenticatorData
        try check(authData)
        guard let credential = authData.attestedCredential else {
            throw .verificationFailed("no attested credential data")
        }
        guard credential.credentialID == response.credentialID else {
            throw .verificationFailed("the credential id differs from rawId")
        }
        let clientDataHash = Data(SHA256.hash(data: response.clientDataJSON))
        switch attestation.format {
        case "none":
            guard attestation.statement.mapValue?.isEmpty == true else {
                throw .verificationFailed("a none attestation must have an empty statement")
            }
        case "packed":
            guard attestation.statement["x5c"] == nil else {
                throw .verificationFailed("packed attestation with a certificate chain is not supported")
            }
            guard attestation.statement["alg"]?.intValue == credential.publicKey.algorithm,
                let signature = attestation.statement["sig"]?.bytesValue,
                credential.publicKey.isValidSignature(signature, for: authData.raw + clientDataHash)
            else { throw .verificationFailed("the packed self-attestation signature does not verify") }
        default:
            throw .verificationFailed("attestation format \(attestation.format) is not accepted")
        }
        return VerifiedRegistration(
            credentialID: credential.credentialID, publicKey: credential.publicKey, signCount: authData.signCount,
            userVerified: authData.flags.contains(.userVerified), attestationFormat: attestation.format)
    }

    /// Checks a sign-in against the stored credential; returns the new signature counter to store.
    public func verifyAuthentication(
        _ response: AuthenticationResponse, expectedChallenge: Data, publicKey: COSEKey,
        storedSignCount: UInt32
    ) throws(WebAuthnError) -> UInt32 {
        let clientData = try CollectedClientData(parsing: response.clientDataJSON)
        try check(clientData, type: "webauthn.get", challenge: expectedChallenge)
        let authData = try AuthenticatorData(parsing: response.authenticatorData)
        try check(authData)
        guard
            publicKey.isValidSignature(
                response.signature, for: response.authenticatorData + Data(SHA256.hash(data: response.clientDataJSON)))
        else {
            throw .verificationFailed("the signature does not verify with the registered key")
        }
        // §7.2 step 22: a counter that does not grow (when either side counts) may mean a cloned authenticator.
        if authData.signCount != 0 || storedSignCount != 0, authData.signCount <= storedSignCount {
            throw .verificationFailed(
                "the signature counter went from \(storedSignCount) to \(authData.signCount): possibly a cloned authenticator"
            )
        }
        return authData.signCount
    }

    private func check(_ clientData: CollectedClientData, type: String, challenge: Data) throws(WebAuthnError) {
        guard clientData.type == type else {
            throw .verificationFailed("client data type is \(clientData.type), expected \(type)")
        }
        guard clientData.challenge == challenge else {
            throw .verificationFailed("the challenge is not the one this RP issued")
        }
        guard origins.contains(clientData.origin) else {
            throw .verificationFailed("origin \(clientData.origin) is not allowed")
        }
        guard !clientData.crossOrigin else { throw .verificationFailed("cross-origin use is not allowed") }
    }

    private func check(_ authData: AuthenticatorData) throws(WebAuthnError) {
        guard authData.rpIdHash == Data(SHA256.hash(data: Data(rpId.utf8))) else {
            throw .verificationFailed("the RP ID hash is not this RP's")
        }
        guard authData.flags.contains(.userPresent) else { throw .verificationFailed("user presence (UP) is not set") }
        if requireUserVerification, !authData.flags.contains(.userVerified) {
            throw .verificationFailed("user verification (UV) is required")
        }
        if authData.flags.contains(.backedUp), !authData.flags.contains(.backupEligible) {
            throw .verificationFailed("BS set without BE")
        }
    }
}
