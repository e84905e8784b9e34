import Foundation

/// The PKCE verifiers of a flow's authorization codes, between the flow that received a code and the token
/// request that redeems it.
///
/// `HaapiManager` sends a code challenge in every authorization request it makes (RFC 9700 §2.1.1 requires
/// PKCE of public clients) and records the verifier against the code the flow ends with.
/// `OAuthTokenManager.fetchAccessToken(with:dpop:)` finds it in the store of the configuration both managers
/// were built from (`HaapiConfiguration` holds one), so the seed's call shape stays.
/// Small and bounded: a flow yields one code, which is redeemed at once.
@_spi(Tooling) public final class CodeVerifierStore: Sendable {
    // A lock, not an actor: the lookups are synchronous parts of building a request.
    private let verifiers = LockedValue<[(code: String, verifier: String)]>([])
    private let capacity = 8

    @_spi(Tooling) public init() {}

    @_spi(Tooling) public func record(_ verifier: String, for code: String) {
        verifiers.withLock { verifiers in
            verifiers.removeAll { $0.code == code }
            verifiers.append((code, verifier))
            if verifiers.count > capacity { verifiers.removeFirst(verifiers.count - capacity) }
        }
    }

    /// The verifier for `code`, removed: a code is redeemed once.
    @_spi(Tooling) public func take(for code: String) -> String? {
        verifiers.withLock { verifiers in
            guard let index = verifiers.firstIndex(where: { $0.code == code }) else { return nil }
            return verifiers.remove(at: index).verifier
        }
    }
}
