import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys
import Testing

/// WebAuthn Level 3 §16 test vectors (values from ../shared/research/verification.md §1.5).
@Suite("WebAuthn L3 test vectors")
struct WebAuthnVectorTests {
    static let origin = "https://example.org"

    @Test("none.ES256 registration: our attestationObject is byte-exact, and the RP checks accept it")
    func noneRegistration() throws {
        let key = try P256.Signing.PrivateKey(
            rawRepresentation: Data(hex: "6e68e7a58484a3264f66b77f5d6dc5bc36a47085b615c9727ab334e8c369c2ee"))
        let clientData = Data(
            #"{"type":"webauthn.create","challenge":"AMMPt4UxxGTStncdq417YDwBFi8vpIa-pw8oOuVW4TA","origin":"https://example.org","crossOrigin":false,"extraData":"clientDataJSON may be extended with additional fields in the future, such as this: BkQeDjdcTBrXBiAwJTLE5Q"}"#
                .utf8)
        let object = try SoftwareAuthenticator.attestationObject(
            rpId: "example.org", privateKey: key,
            credentialID: Data(hex: "f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4"),
            aaguid: Data(hex: "8446ccb9ab1db374750b2367ff6f3a1f"), flags: [.userPresent, .backupEligible, .backedUp],
            clientDataJSON: clientData, format: .none)
        let expected =
            "a363666d74646e6f6e656761747453746d74a068617574684461746158a4bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b559000000008446ccb9ab1db374750b2367ff6f3a1f0020f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4a5010203262001215820afefa16f97ca9b2d23eb86ccb64098d20db90856062eb249c33a9b672f26df61225820930a56b87a2fca66334b03458abf879717c12cc68ed73290af2e2664796b9220"
        #expect(object.encoded.hex == expected)
        let verifier = RelyingPartyVerifier(rpId: "example.org", origins: [Self.origin])
        let verified = try verifier.verifyRegistration(
            RegistrationResponse(
                credentialID: Data(hex: "f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4"),
                clientDataJSON: clientData,
                attestationObject: Data(hex: expected)),
            expectedChallenge: Data(hex: "00c30fb78531c464d2b6771dab8d7b603c01162f2fa486bea70f283ae556e130"))
        #expect(
            verified.publicKey == COSEKey(p256: key.publicKey) && verified.attestationFormat == "none"
                && !verified.userVerified)
    }

    @Test("none.ES256 authentication: the published signature verifies with the registered key")
    func noneAuthentication() throws {
        let key = try P256.Signing.PrivateKey(
            rawRepresentation: Data(hex: "6e68e7a58484a3264f66b77f5d6dc5bc36a47085b615c9727ab334e8c369c2ee"))
        let response = AuthenticationResponse(
            credentialID: Data(hex: "f91f391db4c9b2fde0ea70189cba3fb63f579ba6122b33ad94ff3ec330084be4"),
            clientDataJSON: Data(
                #"{"type":"webauthn.get","challenge":"OcDnUhQXulTUPo3JUXT0I97pvzzYBP9tZchXyav01Ag","origin":"https://example.org","crossOrigin":false}"#
                    .utf8),
            authenticatorData: Data(hex: "bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b51900000000"),
            signature: Data(
                hex:
                    "3046022100f50a4e2e4409249c4a853ba361282f09841df4dd4547a13a87780218deffcd380221008480ac0f0b93538174f575bf11a1dd5d78c6e486013f937295ea13653e331e87"
            ),
            userHandle: nil)
        let verifier = RelyingPartyVerifier(rpId: "example.org", origins: [Self.origin])
        let count = try verifier.verifyAuthentication(
            response, expectedChallenge: Data(hex: "39c0e7521417ba54d43e8dc95174f423dee9bf3cd804ff6d65c857c9abf4d408"),
            publicKey: COSEKey(p256: key.publicKey), storedSignCount: 0)
        #expect(count == 0)
        // The same response against another challenge, RP or key fails.
        #expect(throws: WebAuthnError.self) {
            try verifier.verifyAuthentication(
                response, expectedChallenge: Data(count: 32), publicKey: COSEKey(p256: key.publicKey),
                storedSignCount: 0)
        }
        #expect(throws: WebAuthnError.self) {
            try RelyingPartyVerifier(rpId: "example.com", origins: [Self.origin]).verifyAuthentication(
                response,
                expectedChallenge: Data(hex: "39c0e7521417ba54d43e8dc95174f423dee9bf3cd804ff6d65c857c9abf4d408"),
                publicKey: COSEKey(p256: key.publicKey), storedSignCount: 0)
        }
        #expect(throws: WebAuthnError.self) {
            try verifier.verifyAuthentication(
                response,
                expectedChallenge: Data(hex: "39c0e7521417ba54d43e8dc95174f423dee9bf3cd804ff6d65c857c9abf4d408"),
                publicKey: COSEKey(p256: P256.Signing.PrivateKey().publicKey), storedSignCount: 0)
        }
    }

    @Test(
        "packed-self.ES256: the published registration and authentication verify; our packed object matches apart from the signature"
    )
    func packedSelf() throws {
        let key = try P256.Signing.PrivateKey(
            rawRepresentation: Data(hex: "b4bbfa5d68e1693b6ef5a19a0e60ef7ee2cbcac81f7fec7006ac3a21e0c5116a"))
        let credentialID = Data(hex: "455ef34e2043a87db3d4afeb39bbcb6cc32df9347c789a865ecdca129cbef58c")
        let clientData = Data(
            #"{"type":"webauthn.create","challenge":"eGnCt3LUtY66k3jPjynibPk1qnffDaifqZwL3Ap29-U","origin":"https://example.org","crossOrigin":false,"extraData":"clientDataJSON may be extended with additional fields in the future, such as this: U9hTXvKE2URkMnb_0xYHVg"}"#
                .utf8)
        let published = Data(
            hex:
                "a363666d74667061636b65646761747453746d74a263616c672663736967584630440220067a20754ab925005dbf378097c92120031581c73228d1fb4f5b881bcd7da98302207fc7b147558c7c0eba3af18bd9d121fa3d3a26d17fe3f220272178f473b6006d68617574684461746158a4bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b55d00000000df850e09db6afbdfab51697791506cfc0020455ef34e2043a87db3d4afeb39bbcb6cc32df9347c789a865ecdca129cbef58ca5010203262001215820eb151c8176b225cc651559fecf07af450fd85802046656b34c18f6cf193843c5225820927b8aa427a2be1b8834d233a2d34f61f13bfd44119c325d5896e183fee484f2"
        )
        let verifier = RelyingPartyVerifier(rpId: "example.org", origins: [Self.origin], requireUserVerification: true)
        let verified = try verifier.verifyRegistration(
            RegistrationResponse(credentialID: credentialID, clientDataJSON: clientData, attestationObject: published),
            expectedChallenge: Data(hex: "7869c2b772d4b58eba9378cf8f29e26cf935aa77df0da89fa99c0bdc0a76f7e5"))
        #expect(verified.attestationFormat == "packed" && verified.userVerified)

        // Ours: same authenticator data; a fresh (random-k) signature that the same checks accept.
        let ours = try SoftwareAuthenticator.attestationObject(
            rpId: "example.org", privateKey: key, credentialID: credentialID,
            aaguid: Data(hex: "df850e09db6afbdfab51697791506cfc"),
            flags: [.userPresent, .userVerified, .backupEligible, .backedUp], clientDataJSON: clientData,
            format: .packed)
        #expect(ours.authenticatorData.raw == (try AttestationObject(parsing: published)).authenticatorData.raw)
        _ = try verifier.verifyRegistration(
            RegistrationResponse(
                credentialID: credentialID, clientDataJSON: clientData, attestationObject: ours.encoded),
            expectedChallenge: Data(hex: "7869c2b772d4b58eba9378cf8f29e26cf935aa77df0da89fa99c0bdc0a76f7e5"))

        let authentication = AuthenticationResponse(
            credentialID: credentialID,
            clientDataJSON: Data(
                #"{"type":"webauthn.get","challenge":"RHihCxNSNI3RYME1Ow1Gm12xnrkcJ_ffpv7Tn-Jq8gs","origin":"https://example.org","crossOrigin":false,"extraData":"clientDataJSON may be extended with additional fields in the future, such as this: gTb53rz6EhSWomXGzimC1Q"}"#
                    .utf8),
            authenticatorData: Data(hex: "bfabc37432958b063360d3ad6461c9c4735ae7f8edd46592a5e0f01452b2e4b50900000000"),
            signature: Data(
                hex:
                    "304402203310b9431903c401f1be2bdc8d23a4007682dbbddcf846994947b7f465daf84002204e94dd00047b316061b3b99772b7efd95994a83ef584b3b6b825ea3550251b66"
            ),
            userHandle: nil)
        let lenient = RelyingPartyVerifier(rpId: "example.org", origins: [Self.origin])
        _ = try lenient.verifyAuthentication(
            authentication,
            expectedChallenge: Data(hex: "4478a10b1352348dd160c1353b0d469b5db19eb91c27f7dfa6fed39fe26af20b"),
            publicKey: verified.publicKey, storedSignCount: 0)
        // That sign-in did not verify the user (flags 0x09): an RP that requires UV refuses it.
        #expect(throws: WebAuthnError.self) {
            try verifier.verifyAuthentication(
                authentication,
                expectedChallenge: Data(hex: "4478a10b1352348dd160c1353b0d469b5db19eb91c27f7dfa6fed39fe26af20b"),
                publicKey: verified.publicKey, storedSignCount: 0)
        }
    }
}
