import Foundation

/// Creates and uses passkeys. `SoftwareAuthenticator` works everywhere (keys in a `Storage`); on Apple
/// platforms `PlatformAuthenticator` uses the system's passkeys through ASAuthorization.
public protocol WebAuthnAuthenticator: Sendable {
    /// Creates a credential for the RP in `options`, as a browser at `origin` would.
    func register(
        _ options: PublicKeyCredentialCreationOptions, origin: String
    ) async throws(WebAuthnError) -> RegistrationResponse
    /// Signs the challenge in `options` with a credential for its RP.
    func authenticate(
        _ options: PublicKeyCredentialRequestOptions, origin: String
    ) async throws(WebAuthnError) -> AuthenticationResponse
}

/// The checks a browser makes before it lets an origin use an RP ID (WebAuthn §5.1.3 step 8, §5.1.4 step 7).
enum OriginPolicy {
    /// The RP ID must be the origin's host or a registrable suffix of it; the origin must be https
    /// (http only for localhost).
    static func check(rpId: String, origin: String) throws(WebAuthnError) {
        guard let url = URL(string: origin), let host = url.host?.lowercased(), let scheme = url.scheme?.lowercased()
        else {
            throw .notAllowed("\(origin) is not an origin")
        }
        let isLocal = host == "localhost" || host.hasSuffix(".localhost") || host == "127.0.0.1"
        guard scheme == "https" || (scheme == "http" && isLocal) else {
            throw .notAllowed("\(origin) is not a secure origin")
        }
        let rp = rpId.lowercased()
        guard !rp.isEmpty, host == rp || host.hasSuffix("." + rp), rp.contains(".") || rp == "localhost" else {
            throw .notAllowed("RP ID \(rpId) is not valid for origin \(origin)")
        }
    }
}
