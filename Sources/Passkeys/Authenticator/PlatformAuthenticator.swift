#if canImport(AuthenticationServices) && (os(iOS) || os(macOS))
import AuthenticationServices
import Foundation

/// The system's passkeys (iCloud Keychain, or a security key) through ASAuthorization, behind the same
/// protocol as `SoftwareAuthenticator`. The app needs the Associated Domains entitlement
/// `webcredentials:<rpId>`; the origin is implied by it, so `origin` is only used for the RP ID check.
///
/// Unchecked: an `NSObject` subclass whose members are immutable and `Sendable`; left unchecked because this
/// file is compiled only on Apple platforms, where a change to it cannot be verified here (see
/// .github/workflows/apple.yml). No ASAuthorization object (not `Sendable`) leaves the main actor: requests
/// are made and credentials read there.
@available(iOS 16.0, macOS 13.0, *)
public final class PlatformAuthenticator: NSObject, WebAuthnAuthenticator, @unchecked Sendable {
    public enum Kind: Sendable { case platform, securityKey }

    private let kind: Kind
    private let immediatelyAvailableOnly: Bool
    private let anchor: @MainActor @Sendable () -> ASPresentationAnchor

    /// - Parameters:
    ///   - immediatelyAvailableOnly: sign in only with a passkey already on this device, showing nothing
    ///     (`.preferImmediatelyAvailableCredentials`): a silent sign-in at launch, which fails quietly when
    ///     there is none (seed 004's flow).
    ///   - anchor: the window to present the system sheet on.
    public init(
        kind: Kind = .platform, immediatelyAvailableOnly: Bool = false,
        anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor
    ) {
        self.kind = kind
        self.immediatelyAvailableOnly = immediatelyAvailableOnly
        self.anchor = anchor
    }

    public func register(
        _ options: PublicKeyCredentialCreationOptions, origin: String
    ) async throws(WebAuthnError) -> RegistrationResponse {
        try OriginPolicy.check(rpId: options.rpId, origin: origin)
        let kind = kind
        let outcome = await perform(
            immediatelyAvailableOnly: false, request: { Self.registrationRequest(options, kind: kind) },
            read: { Self.registration($0, kind: kind) })
        return try Self.unwrap(outcome, missing: "the system returned no attestation")
    }

    public func authenticate(
        _ options: PublicKeyCredentialRequestOptions, origin: String
    ) async throws(WebAuthnError) -> AuthenticationResponse {
        guard let rpId = options.rpId ?? URL(string: origin)?.host else { throw .notAllowed("no RP ID") }
        try OriginPolicy.check(rpId: rpId, origin: origin)
        let kind = kind
        let outcome = await perform(
            immediatelyAvailableOnly: immediatelyAvailableOnly,
            request: { Self.assertionRequest(options, rpId: rpId, kind: kind) },
            read: { Self.assertion($0, kind: kind) })
        return try Self.unwrap(outcome, missing: "the system returned no assertion")
    }

    // MARK: - Requests (made on the main actor) and credentials (read where they arrive)

    @MainActor
    private static func registrationRequest(
        _ options: PublicKeyCredentialCreationOptions, kind: Kind
    ) -> ASAuthorizationRequest {
        let preferences = PlatformRequestPreferences(options)
        switch kind {
        case .platform:
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.rpId)
            let request = provider.createCredentialRegistrationRequest(
                challenge: options.challenge, name: options.userName, userID: options.userID)
            if let preference = preferences.userVerification {
                request.userVerificationPreference = .init(rawValue: preference)
            }
            if let attestation = preferences.attestation {
                request.attestationPreference = .init(rawValue: attestation)
            }
            return request
        case .securityKey:
            let provider = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: options.rpId)
            let request = provider.createCredentialRegistrationRequest(
                challenge: options.challenge, displayName: options.userDisplayName,
                name: options.userName, userID: options.userID)
            request.credentialParameters = options.algorithms.map {
                ASAuthorizationPublicKeyCredentialParameters(algorithm: ASCOSEAlgorithmIdentifier(rawValue: $0))
            }
            if let preference = preferences.userVerification {
                request.userVerificationPreference = .init(rawValue: preference)
            }
            if let attestation = preferences.attestation {
                request.attestationPreference = .init(rawValue: attestation)
            }
            request.excludedCredentials = options.excludeCredentials.map {
                ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor(
                    credentialID: $0,
                    transports: ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport.allSupported)
            }
            return request
        }
    }

    @MainActor
    private static func assertionRequest(
        _ options: PublicKeyCredentialRequestOptions, rpId: String, kind: Kind
    ) -> ASAuthorizationRequest {
        let userVerification = PlatformRequestPreferences(options).userVerification
        switch kind {
        case .platform:
            let request = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: rpId)
                .createCredentialAssertionRequest(challenge: options.challenge)
            request.allowedCredentials = options.allowCredentials.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
            }
            if let userVerification { request.userVerificationPreference = .init(rawValue: userVerification) }
            return request
        case .securityKey:
            let request = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: rpId)
                .createCredentialAssertionRequest(challenge: options.challenge)
            request.allowedCredentials = options.allowCredentials.map {
                ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor(
                    credentialID: $0,
                    transports: ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport.allSupported)
            }
            if let userVerification { request.userVerificationPreference = .init(rawValue: userVerification) }
            return request
        }
    }

    private static func registration(_ credential: any ASAuthorizationCredential, kind: Kind) -> RegistrationResponse? {
        guard let registration = credential as? ASAuthorizationPublicKeyCredentialRegistration,
            let attestation = registration.rawAttestationObject
        else { return nil }
        return RegistrationResponse(
            credentialID: registration.credentialID, clientDataJSON: registration.rawClientDataJSON,
            attestationObject: attestation,
            transports: kind == .platform ? ["internal", "hybrid"] : ["usb", "nfc"],
            authenticatorAttachment: kind == .platform ? "platform" : "cross-platform")
    }

    private static func assertion(_ credential: any ASAuthorizationCredential, kind: Kind) -> AuthenticationResponse? {
        // `rawAuthenticatorData`, `signature` and `userID` are implicitly unwrapped in the SDK: read as optionals,
        // so a missing one is "no assertion", not a crash.
        guard let assertion = credential as? ASAuthorizationPublicKeyCredentialAssertion,
            let authenticatorData = assertion.rawAuthenticatorData as Data?,
            let signature = assertion.signature as Data?
        else { return nil }
        return AuthenticationResponse(
            credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
            authenticatorData: authenticatorData, signature: signature, userHandle: assertion.userID as Data?,
            authenticatorAttachment: kind == .platform ? "platform" : "cross-platform")
    }

    private static func unwrap<Response>(
        _ outcome: Result<Response?, any Error>, missing: String
    ) throws(WebAuthnError) -> Response {
        switch outcome {
        case .success(let response?): return response
        case .success(nil): throw .notAllowed(missing)
        case .failure(let error): throw .notAllowed("the system refused: \(error.localizedDescription)")
        }
    }

    // MARK: - Running a request

    /// Runs one ASAuthorization request on the main actor: the request is made there, and its credential is
    /// read where the delegate receives it into our own `Sendable` response, so only that (or the error)
    /// crosses back.
    private func perform<Response: Sendable>(
        immediatelyAvailableOnly: Bool, request: @escaping @MainActor @Sendable () -> ASAuthorizationRequest,
        read: @escaping @Sendable (any ASAuthorizationCredential) -> Response?
    ) async -> Result<Response?, any Error> {
        await Self.run(anchor: anchor, immediatelyAvailableOnly: immediatelyAvailableOnly, request: request, read: read)
    }

    @MainActor
    private static func run<Response: Sendable>(
        anchor: @MainActor @Sendable () -> ASPresentationAnchor, immediatelyAvailableOnly: Bool,
        request: @MainActor @Sendable () -> ASAuthorizationRequest,
        read: @escaping @Sendable (any ASAuthorizationCredential) -> Response?
    ) async -> Result<Response?, any Error> {
        let controller = ASAuthorizationController(authorizationRequests: [request()])
        let delegate = Delegate(anchor: anchor())
        controller.delegate = delegate
        controller.presentationContextProvider = delegate
        let outcome: Result<Response?, any Error> = await withCheckedContinuation { continuation in
            delegate.finish = { result in continuation.resume(returning: result.map(read)) }
            if immediatelyAvailableOnly {
                controller.performRequests(options: .preferImmediatelyAvailableCredentials)
            } else {
                controller.performRequests()
            }
        }
        // The controller holds its delegate weakly: both live until the answer is in.
        withExtendedLifetime((controller, delegate)) {}
        return outcome
    }

    /// The controller's delegate and presentation provider. Not main-actor isolated itself: where the SDK's
    /// protocols are, the conformances make it so; where they are not, it still only runs on the main thread
    /// (ASAuthorizationController calls back there) and hands the credential to `finish` without crossing
    /// an isolation boundary, as the credential is not `Sendable`.
    private final class Delegate: NSObject, ASAuthorizationControllerDelegate,
        ASAuthorizationControllerPresentationContextProviding
    {
        let anchor: ASPresentationAnchor
        /// Called once, with the credential or the error.
        var finish: ((Result<any ASAuthorizationCredential, any Error>) -> Void)?

        init(anchor: ASPresentationAnchor) {
            self.anchor = anchor
        }

        private func deliver(_ result: Result<any ASAuthorizationCredential, any Error>) {
            let finish = self.finish
            self.finish = nil
            finish?(result)
        }

        func authorizationController(
            controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization
        ) {
            deliver(.success(authorization.credential))
        }

        func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
            deliver(.failure(error))
        }

        func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { anchor }
    }
}
#endif
