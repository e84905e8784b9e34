#if canImport(AuthenticationServices) && (os(iOS) || os(macOS))
import AuthenticationServices
import Foundation

/// The system's passkeys (iCloud Keychain, or a security key) through ASAuthorization, behind the same
/// protocol as `SoftwareAuthenticator`. The app needs the Associated Domains entitlement
/// `webcredentials:<rpId>`; the origin is implied by it, so `origin` is only used for the RP ID check.
///
/// Unchecked: an `NSObject` subclass (ASAuthorization's delegates must be) whose members are immutable and
/// `Sendable`; left unchecked because this file is compiled only on Apple platforms, where a change to it
/// cannot be verified here (see .github/workflows/apple.yml).
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
        let request: ASAuthorizationRequest
        switch kind {
        case .platform:
            let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: options.rpId)
            let platform = provider.createCredentialRegistrationRequest(
                challenge: options.challenge, name: options.userName, userID: options.userID)
            let preferences = PlatformRequestPreferences(options)
            if let preference = preferences.userVerification {
                platform.userVerificationPreference = .init(rawValue: preference)
            }
            if let attestation = preferences.attestation {
                platform.attestationPreference = .init(rawValue: attestation)
            }
            request = platform
        case .securityKey:
            let provider = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: options.rpId)
            let key = provider.createCredentialRegistrationRequest(
                challenge: options.challenge, displayName: options.userDisplayName,
                name: options.userName, userID: options.userID)
            key.credentialParameters = options.algorithms.map {
                ASAuthorizationPublicKeyCredentialParameters(algorithm: ASCOSEAlgorithmIdentifier(rawValue: $0))
            }
            let preferences = PlatformRequestPreferences(options)
            if let preference = preferences.userVerification {
                key.userVerificationPreference = .init(rawValue: preference)
            }
            if let attestation = preferences.attestation {
                key.attestationPreference = .init(rawValue: attestation)
            }
            key.excludedCredentials = options.excludeCredentials.map {
                ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor(
                    credentialID: $0,
                    transports: ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport.allSupported)
            }
            request = key
        }
        let credential = try await perform(request)
        guard let registration = credential as? ASAuthorizationPublicKeyCredentialRegistration,
            let attestation = registration.rawAttestationObject
        else {
            throw .notAllowed("the system returned no attestation")
        }
        return RegistrationResponse(
            credentialID: registration.credentialID, clientDataJSON: registration.rawClientDataJSON,
            attestationObject: attestation,
            transports: kind == .platform ? ["internal", "hybrid"] : ["usb", "nfc"],
            authenticatorAttachment: kind == .platform ? "platform" : "cross-platform")
    }

    public func authenticate(
        _ options: PublicKeyCredentialRequestOptions, origin: String
    ) async throws(WebAuthnError) -> AuthenticationResponse {
        guard let rpId = options.rpId ?? URL(string: origin)?.host else { throw .notAllowed("no RP ID") }
        try OriginPolicy.check(rpId: rpId, origin: origin)
        let request: ASAuthorizationRequest
        switch kind {
        case .platform:
            let assertion = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: rpId)
                .createCredentialAssertionRequest(challenge: options.challenge)
            assertion.allowedCredentials = options.allowCredentials.map {
                ASAuthorizationPlatformPublicKeyCredentialDescriptor(credentialID: $0)
            }
            if let preference = PlatformRequestPreferences(options).userVerification {
                assertion.userVerificationPreference = .init(rawValue: preference)
            }
            request = assertion
        case .securityKey:
            let assertion = ASAuthorizationSecurityKeyPublicKeyCredentialProvider(relyingPartyIdentifier: rpId)
                .createCredentialAssertionRequest(challenge: options.challenge)
            assertion.allowedCredentials = options.allowCredentials.map {
                ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor(
                    credentialID: $0,
                    transports: ASAuthorizationSecurityKeyPublicKeyCredentialDescriptor.Transport.allSupported)
            }
            if let preference = PlatformRequestPreferences(options).userVerification {
                assertion.userVerificationPreference = .init(rawValue: preference)
            }
            request = assertion
        }
        let credential = try await perform(request, immediatelyAvailableOnly: immediatelyAvailableOnly)
        guard let assertion = credential as? ASAuthorizationPublicKeyCredentialAssertion else {
            throw .notAllowed("the system returned no assertion")
        }
        return AuthenticationResponse(
            credentialID: assertion.credentialID, clientDataJSON: assertion.rawClientDataJSON,
            authenticatorData: assertion.rawAuthenticatorData, signature: assertion.signature,
            userHandle: assertion.userID,
            authenticatorAttachment: kind == .platform ? "platform" : "cross-platform")
    }

    /// Runs one ASAuthorization request and waits for its delegate callback.
    private func perform(
        _ request: ASAuthorizationRequest, immediatelyAvailableOnly: Bool = false
    ) async throws(WebAuthnError) -> ASAuthorizationCredential {
        let result: Result<ASAuthorizationCredential, Error> = await withCheckedContinuation { continuation in
            Task { @MainActor in
                let controller = ASAuthorizationController(authorizationRequests: [request])
                let delegate = Delegate(continuation: continuation, anchor: anchor())
                controller.delegate = delegate
                controller.presentationContextProvider = delegate
                objc_setAssociatedObject(controller, &Delegate.key, delegate, .OBJC_ASSOCIATION_RETAIN)
                if immediatelyAvailableOnly {
                    controller.performRequests(options: .preferImmediatelyAvailableCredentials)
                } else {
                    controller.performRequests()
                }
            }
        }
        switch result {
        case .success(let credential): return credential
        case .failure(let error): throw .notAllowed("the system refused: \(error.localizedDescription)")
        }
    }

    private final class Delegate: NSObject, ASAuthorizationControllerDelegate,
        ASAuthorizationControllerPresentationContextProviding
    {
        nonisolated(unsafe) static var key = 0
        let continuation: CheckedContinuation<Result<ASAuthorizationCredential, Error>, Never>
        let anchor: ASPresentationAnchor

        init(
            continuation: CheckedContinuation<Result<ASAuthorizationCredential, Error>, Never>,
            anchor: ASPresentationAnchor
        ) {
            self.continuation = continuation
            self.anchor = anchor
        }

        func authorizationController(
            controller: ASAuthorizationController, didCompleteWithAuthorization authorization: ASAuthorization
        ) {
            continuation.resume(returning: .success(authorization.credential))
        }

        func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: Error) {
            continuation.resume(returning: .failure(error))
        }

        func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor { anchor }
    }
}
#endif
