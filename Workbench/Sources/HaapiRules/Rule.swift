/// A rule of the protocols the dev server enforces and `haapi check` tests, by its id: the one name a refused
/// request's log line, its `error_description` (in brackets at the end), the inspector and `haapi check`'s
/// report all use. What each rule says, where it is written and how to fix a breach is in
/// ``RuleCatalogue`` (one entry per case, so no side can name a rule the catalogue lacks: it would not
/// compile).
package enum Rule: String, CaseIterable, Sendable {
    // DPoP (RFC 9449 §4.3 and §7–§11).
    case dpopMissing = "dpop.missing"
    case dpopMultipleHeaders = "dpop.multiple-headers"
    case dpopMalformed = "dpop.malformed"
    case dpopTyp = "dpop.typ"
    case dpopAlg = "dpop.alg"
    case dpopSignature = "dpop.signature"
    case dpopJWK = "dpop.jwk"
    case dpopHtmMismatch = "dpop.htm-mismatch"
    case dpopHtuMismatch = "dpop.htu-mismatch"
    case dpopNonceMissing = "dpop.nonce-missing"
    case dpopNonceUnknown = "dpop.nonce-unknown"
    case dpopNonceStale = "dpop.nonce-stale"
    case dpopIatWindow = "dpop.iat-window"
    case dpopReplay = "dpop.replay"
    case dpopAthMissing = "dpop.ath-missing"
    case dpopAthMismatch = "dpop.ath-mismatch"
    case dpopCnfMismatch = "dpop.cnf-mismatch"
    case dpopTokenNotBound = "dpop.token-not-bound"
    case dpopOverloaded = "dpop.overloaded"

    // OAuth 2 (RFC 6749, 6750, 7009, 7591, 7636, 7662, 9700).
    case invalidRequest = "oauth.invalid-request"
    case clientUnknown = "oauth.client-unknown"
    case clientAuthentication = "oauth.client-authentication"
    case grantUnsupported = "oauth.grant-unsupported"
    case grantNotAllowed = "oauth.grant-not-allowed"
    case redirectURI = "oauth.redirect-uri"
    case pkceMissing = "oauth.pkce-missing"
    case pkcePlain = "oauth.pkce-plain"
    case pkceMismatch = "oauth.pkce-mismatch"
    case codeUnknown = "oauth.code-unknown"
    case codeReused = "oauth.code-reused"
    case codeExpired = "oauth.code-expired"
    case refreshUnknown = "oauth.refresh-unknown"
    case refreshReused = "oauth.refresh-reused"
    case refreshRevoked = "oauth.refresh-revoked"
    case refreshRotation = "oauth.refresh-rotation"
    case scope = "oauth.scope"
    case accessTokenInvalid = "oauth.access-token-invalid"
    case tokenScheme = "oauth.token-scheme"
    case insufficientScope = "oauth.insufficient-scope"
    case revocation = "oauth.revocation"
    case introspectionOpen = "oauth.introspection-open"
    case clientMetadata = "oauth.client-metadata"

    // Discovery (RFC 8414), as `haapi check` reads it.
    case discoveryMissing = "discovery.missing"
    case issuerMismatch = "discovery.issuer-mismatch"
    case endpointsOffOrigin = "discovery.endpoints-off-origin"
    case endpointMissing = "discovery.endpoint-missing"
    case jwksPrivate = "discovery.jwks-private"
    case pkceS256Unadvertised = "discovery.pkce-s256"
    case dpopAlgorithms = "discovery.dpop-algs"

    // HAAPI.
    case haapiAccept = "haapi.accept"
    case haapiTokenMissing = "haapi.token-missing"
    case haapiTokenInvalid = "haapi.token-invalid"
    case attestationRefused = "haapi.attestation-refused"
    case attestationTokenInvalid = "haapi.cat-invalid"
    case sessionMissing = "haapi.session-missing"
    case sessionMismatch = "haapi.session-mismatch"
    case flowExpired = "haapi.flow-expired"
    case flowState = "haapi.flow-state"
    case flowSubject = "haapi.flow-subject"
    case invalidInput = "haapi.invalid-input"
    case incorrectCredentials = "haapi.incorrect-credentials"
    case authenticationFailed = "haapi.authentication-failed"
    case actionsOffOrigin = "haapi.actions-off-origin"

    // Passkeys (WebAuthn Level 3 §7.1, §7.2).
    case passkeyOrigin = "passkeys.origin"
    case passkeyRPID = "passkeys.rp-id"
    case passkeyChallenge = "passkeys.challenge"
    case passkeySignature = "passkeys.signature"
    case passkeyCounter = "passkeys.counter"
    case passkeyUserPresence = "passkeys.user-presence"
    case passkeyInvalid = "passkeys.invalid"
    case passkeySession = "passkeys.session"

    // The Authentication Hub (seed 002): its refusals carry the hub's own errorCode and errorMessage.
    case authHubRefused = "authhub.refused"

    // The dev server's own pages and endpoints.
    case localOnly = "server.local-only"
    case notFound = "server.not-found"
    case storeFailure = "server.store-failure"
    case serverError = "server.error"
    case refused = "server.refused"

    /// The id every output uses, such as `dpop.htu-mismatch`.
    package var id: String { rawValue }
}
