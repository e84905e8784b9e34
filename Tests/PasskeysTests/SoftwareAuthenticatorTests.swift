import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import Passkeys
import Testing

@Suite("SoftwareAuthenticator with the RP checks")
struct SoftwareAuthenticatorTests {
    static let origin = "https://login.example.com"

    static func creation(
        challenge: Data = Data(SecureRandom.bytes(32)), user: String = "alice", exclude: [Data] = []
    ) -> PublicKeyCredentialCreationOptions {
        PublicKeyCredentialCreationOptions(
            rpId: "example.com", rpName: "Example", userID: Data(user.utf8), userName: user, userDisplayName: user,
            challenge: challenge, excludeCredentials: exclude)
    }

    @Test(
        "register then sign in twice (none and packed): the RP accepts, the counter grows, the JSON round-trips",
        arguments: [
            SoftwareAuthenticator.Attestation.none, .packed,
        ])
    func roundTrip(attestation: SoftwareAuthenticator.Attestation) async throws {
        let authenticator = SoftwareAuthenticator(storage: InMemoryStorage(), policy: .init(attestation: attestation))
        let verifier = RelyingPartyVerifier(rpId: "example.com", origins: [Self.origin], requireUserVerification: true)
        let options = Self.creation()
        let registration = try await authenticator.register(
            try PublicKeyCredentialCreationOptions(json: options.json), origin: Self.origin)
        let parsed = try RegistrationResponse(json: try JSONParser().parse(registration.json.serialized()))
        let credential = try verifier.verifyRegistration(parsed, expectedChallenge: options.challenge)
        #expect(credential.attestationFormat == attestation.rawValue)

        var count = credential.signCount
        for _ in 0..<2 {
            let request = PublicKeyCredentialRequestOptions(
                challenge: Data(SecureRandom.bytes(32)), rpId: "example.com")
            let assertion = try await authenticator.authenticate(request, origin: Self.origin)
            let reparsed = try AuthenticationResponse(json: try JSONParser().parse(assertion.json.serialized()))
            #expect(reparsed.userHandle == Data("alice".utf8))
            let next = try verifier.verifyAuthentication(
                reparsed, expectedChallenge: request.challenge, publicKey: credential.publicKey, storedSignCount: count)
            #expect(next == count + 1)
            count = next
        }
    }

    @Test("a wrong origin for the RP ID, an insecure origin, an excluded credential and missing UV are refused")
    func refusals() async throws {
        let authenticator = SoftwareAuthenticator(storage: InMemoryStorage(), policy: .init(userVerified: false))
        await #expect(throws: WebAuthnError.self) {
            try await authenticator.register(Self.creation(), origin: "https://evil.example.net")
        }
        await #expect(throws: WebAuthnError.self) {
            try await authenticator.register(Self.creation(), origin: "http://login.example.com")
        }
        let first = try await authenticator.register(Self.creation(), origin: Self.origin)
        await #expect(throws: WebAuthnError.self) {
            try await authenticator.register(Self.creation(exclude: [first.credentialID]), origin: Self.origin)
        }
        var strict = Self.creation()
        strict.userVerification = "required"
        await #expect(throws: WebAuthnError.self) { try await authenticator.register(strict, origin: Self.origin) }
        let verifier = RelyingPartyVerifier(rpId: "example.com", origins: [Self.origin], requireUserVerification: true)
        #expect(throws: WebAuthnError.self) { try verifier.verifyRegistration(first, expectedChallenge: Data()) }
    }

    @Test(
        "the RP refuses a replayed assertion (counter does not grow), another origin, and a registration for another challenge"
    )
    func rpRefusals() async throws {
        let authenticator = SoftwareAuthenticator(storage: InMemoryStorage())
        let verifier = RelyingPartyVerifier(rpId: "example.com", origins: [Self.origin])
        let options = Self.creation()
        let registration = try await authenticator.register(options, origin: Self.origin)
        #expect(throws: WebAuthnError.self) {
            try verifier.verifyRegistration(registration, expectedChallenge: Data(SecureRandom.bytes(32)))
        }
        let credential = try verifier.verifyRegistration(registration, expectedChallenge: options.challenge)
        let request = PublicKeyCredentialRequestOptions(challenge: Data(SecureRandom.bytes(32)), rpId: "example.com")
        let assertion = try await authenticator.authenticate(request, origin: Self.origin)
        let count = try verifier.verifyAuthentication(
            assertion, expectedChallenge: request.challenge, publicKey: credential.publicKey, storedSignCount: 0)
        #expect(throws: WebAuthnError.self) {
            try verifier.verifyAuthentication(
                assertion, expectedChallenge: request.challenge, publicKey: credential.publicKey, storedSignCount: count
            )
        }
        let elsewhere = RelyingPartyVerifier(rpId: "example.com", origins: ["https://other.example.com"])
        #expect(throws: WebAuthnError.self) {
            try elsewhere.verifyAuthentication(
                assertion, expectedChallenge: request.challenge, publicKey: credential.publicKey, storedSignCount: 0)
        }
    }

    @Test("credentials persist in the storage: a new authenticator on the same FileStorage signs with them")
    func persistence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("passkeys-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = SoftwareAuthenticator(storage: try FileStorage(directory: directory))
        let options = Self.creation()
        let registration = try await first.register(options, origin: Self.origin)
        let verifier = RelyingPartyVerifier(rpId: "example.com", origins: [Self.origin])
        let credential = try verifier.verifyRegistration(registration, expectedChallenge: options.challenge)
        let second = SoftwareAuthenticator(storage: try FileStorage(directory: directory))
        let request = PublicKeyCredentialRequestOptions(
            challenge: Data(SecureRandom.bytes(32)), rpId: "example.com", allowCredentials: [registration.credentialID])
        let assertion = try await second.authenticate(request, origin: Self.origin)
        #expect(
            try verifier.verifyAuthentication(
                assertion, expectedChallenge: request.challenge, publicKey: credential.publicKey, storedSignCount: 0)
                == 1)
        #expect(try await second.credentials().count == 1)
    }
}
