/// What a ``Rule`` says: a title, the specification section, and the fix in one sentence for each side —
/// `fix` for the app or client whose request was refused (the dev server's log line and inspector), and
/// `serverFix` for a server that breaks the rule (`haapi check`'s report).
package struct RuleEntry: Sendable {
    package let title: String
    package let reference: String
    package let fix: String
    package let serverFix: String
}

/// The catalogue: one entry per ``Rule``.
package enum RuleCatalogue {
    package static func entry(_ rule: Rule) -> RuleEntry {
        switch rule {
        case .dpopMissing:
            RuleEntry(
                title: "The request carries no DPoP proof", reference: "RFC 9449 §4.1, §5, §7.1",
                fix: "send a DPoP header with a proof made for this request (the key the token or code is bound to)",
                serverFix: "refuse requests without a proof where the token or grant is DPoP-bound")
        case .dpopMultipleHeaders:
            RuleEntry(
                title: "More than one DPoP header", reference: "RFC 9449 §4.3 (1)",
                fix: "send exactly one DPoP header", serverFix: "refuse a request with more than one DPoP header")
        case .dpopMalformed:
            RuleEntry(
                title: "The proof is not a well-formed JWT with jti, htm, htu and iat",
                reference: "RFC 9449 §4.2, §4.3 (2)(3)",
                fix: "send a compact JWS whose claims hold jti, htm, htu and a numeric iat",
                serverFix: "refuse proofs that are not one well-formed JWT with every required claim")
        case .dpopTyp:
            RuleEntry(
                title: "The proof's typ is not dpop+jwt", reference: "RFC 9449 §4.3 (4)",
                fix: "set the JOSE header typ to dpop+jwt", serverFix: "accept only proofs whose typ is dpop+jwt")
        case .dpopAlg:
            RuleEntry(
                title: "The proof's alg is not an accepted asymmetric algorithm", reference: "RFC 9449 §4.3 (5)",
                fix: "sign with an algorithm the server lists in dpop_signing_alg_values_supported (ES256 here)",
                serverFix: "accept only asymmetric signature algorithms for proofs (never none or HMAC)")
        case .dpopSignature:
            RuleEntry(
                title: "The proof's signature does not verify with its jwk", reference: "RFC 9449 §4.3 (6)",
                fix: "sign the proof with the private key of the jwk in its header",
                serverFix: "verify every proof's signature with the public key in its jwk header")
        case .dpopJWK:
            RuleEntry(
                title: "The proof's jwk is missing, unusable or holds a private key",
                reference: "RFC 9449 §4.2, §4.3 (7)",
                fix: "put the public key alone (no d, p, q…) in the jwk header",
                serverFix: "refuse proofs whose jwk carries private members")
        case .dpopHtmMismatch:
            RuleEntry(
                title: "htm is not the request's method", reference: "RFC 9449 §4.3 (8)",
                fix: "set htm to the method of the request the proof goes with",
                serverFix: "compare htm with the request's method")
        case .dpopHtuMismatch:
            RuleEntry(
                title: "htu is not the request's URL", reference: "RFC 9449 §4.3 (9)",
                fix:
                    "set htu to the exact URL the request is sent to, without query and fragment (the issuer's host, not another name for it)",
                serverFix: "compare htu with the request's URL, without query and fragment")
        case .dpopNonceMissing:
            RuleEntry(
                title: "The proof carries no nonce and the server demands one", reference: "RFC 9449 §4.3 (10), §8",
                fix: "retry once with the nonce from the DPoP-Nonce header in the proof's nonce claim",
                serverFix: "require DPoP nonces, so a proof made in advance cannot be used later")
        case .dpopNonceUnknown:
            RuleEntry(
                title: "The proof's nonce is not one the server issued", reference: "RFC 9449 §8, §11.1",
                fix:
                    "use the value of the latest DPoP-Nonce header from this server, never one made up or from another server",
                serverFix: "accept only nonces the server issued, and only while they are current")
        case .dpopNonceStale:
            RuleEntry(
                title: "The proof's nonce is no longer current", reference: "RFC 9449 §8.2",
                fix: "take the fresh nonce from this response's DPoP-Nonce header and retry",
                serverFix: "rotate nonces and refuse old ones with use_dpop_nonce and a fresh DPoP-Nonce")
        case .dpopIatWindow:
            RuleEntry(
                title: "The proof's iat is outside the accepted window", reference: "RFC 9449 §4.3 (11), §11.1",
                fix: "make a new proof for each request, with iat from a correct clock",
                serverFix: "accept iat only within a short window around the server's time")
        case .dpopReplay:
            RuleEntry(
                title: "The proof was used before (same jti)", reference: "RFC 9449 §11.1",
                fix: "make a new proof, with a new jti, for every request, including retries",
                serverFix: "keep the jti of accepted proofs for their iat window and refuse repeats")
        case .dpopAthMissing:
            RuleEntry(
                title: "The proof has no ath for the access token it goes with", reference: "RFC 9449 §4.3 (12), §7",
                fix: "add ath, the base64url SHA-256 of the access token, to proofs sent with a token",
                serverFix: "require ath in proofs sent with an access token")
        case .dpopAthMismatch:
            RuleEntry(
                title: "ath is not the hash of the access token sent", reference: "RFC 9449 §4.3 (12)",
                fix: "hash the exact access token in the Authorization header (base64url SHA-256)",
                serverFix: "compare ath with the SHA-256 of the presented access token")
        case .dpopCnfMismatch:
            RuleEntry(
                title: "The proof's key is not the key the token, code or refresh token is bound to",
                reference: "RFC 9449 §4.3 (12), §5, §10",
                fix: "sign with the key that obtained the token (keep the DPoP key for the token's whole life)",
                serverFix: "bind the token to the key of the proof that came with the request, and check that binding")
        case .dpopTokenNotBound:
            RuleEntry(
                title: "A token requested with a proof is not bound to the proof's key", reference: "RFC 9449 §5, §6",
                fix: "check that the client sends its DPoP header to the token endpoint",
                serverFix: "issue DPoP-bound tokens (token_type DPoP, cnf.jkt) when the request carries a proof")
        case .dpopOverloaded:
            RuleEntry(
                title: "The server has taken all the proofs its replay memory holds for now",
                reference: "RFC 9449 §11.1",
                fix: "retry after the seconds in Retry-After", serverFix: "size the replay memory for the proof rate")
        case .invalidRequest:
            RuleEntry(
                title: "The request is malformed", reference: "RFC 6749 §3.1, §5.2",
                fix: "send the parameters the endpoint requires, once each, form-encoded",
                serverFix: "answer malformed requests with invalid_request")
        case .clientUnknown:
            RuleEntry(
                title: "The client id is not registered", reference: "RFC 6749 §2.2, §5.2",
                fix: "use a client id from the server's configuration (haapi serve lists them)",
                serverFix: "answer unknown clients with invalid_client")
        case .clientAuthentication:
            RuleEntry(
                title: "Client authentication failed", reference: "RFC 6749 §2.3, §5.2",
                fix:
                    "authenticate the way the client is configured to (secret, private_key_jwt, attestation) with its current credentials",
                serverFix: "answer a failed client authentication with 401 invalid_client")
        case .grantUnsupported:
            RuleEntry(
                title: "The grant type is not supported", reference: "RFC 6749 §5.2",
                fix: "use authorization_code, refresh_token or client_credentials",
                serverFix: "answer unknown grant types with unsupported_grant_type")
        case .grantNotAllowed:
            RuleEntry(
                title: "The client may not use this grant or request", reference: "RFC 6749 §5.2",
                fix: "allow the grant for this client in the server's configuration, or use the grant it has",
                serverFix: "answer grants a client is not allowed with unauthorized_client")
        case .redirectURI:
            RuleEntry(
                title: "The redirect URI is not registered for the client",
                reference: "RFC 6749 §3.1.2.3, §4.1.3; RFC 9700 §4.1",
                fix:
                    "send a redirect_uri registered for the client, character for character, and the same one at the token endpoint",
                serverFix: "compare redirect URIs exactly with the registered ones")
        case .pkceMissing:
            RuleEntry(
                title: "The authorization request has no PKCE code_challenge",
                reference: "RFC 7636 §4.4.1; RFC 9700 §2.1.1",
                fix: "send code_challenge (S256) with the authorization request",
                serverFix: "require PKCE for public clients")
        case .pkcePlain:
            RuleEntry(
                title: "PKCE with the plain method", reference: "RFC 7636 §4.2; RFC 9700 §2.1.1",
                fix: "use code_challenge_method=S256", serverFix: "refuse the plain method; accept S256 only")
        case .pkceMismatch:
            RuleEntry(
                title: "The code_verifier does not match the code_challenge", reference: "RFC 7636 §4.6",
                fix: "send the verifier whose SHA-256 made the challenge of this code's authorization request",
                serverFix: "accept the code only with the verifier whose SHA-256 is the challenge")
        case .codeUnknown:
            RuleEntry(
                title: "The authorization code is unknown or was issued to another client",
                reference: "RFC 6749 §4.1.3, §5.2",
                fix: "redeem the code the authorization response gave this client, at the same server",
                serverFix: "answer unknown codes with invalid_grant")
        case .codeReused:
            RuleEntry(
                title: "The authorization code was already redeemed",
                reference: "RFC 6749 §4.1.2, §10.5; RFC 9700 §4.5",
                fix: "redeem each code once; start a new authorization for new tokens",
                serverFix: "accept each code once, and revoke the tokens issued for it when it comes back")
        case .codeExpired:
            RuleEntry(
                title: "The authorization code has expired", reference: "RFC 6749 §4.1.2",
                fix: "redeem the code right after the authorization response",
                serverFix: "give codes a short lifetime")
        case .refreshUnknown:
            RuleEntry(
                title: "The refresh token is unknown or belongs to another client", reference: "RFC 6749 §6",
                fix: "send the latest refresh token this client received",
                serverFix: "answer unknown refresh tokens with invalid_grant")
        case .refreshReused:
            RuleEntry(
                title: "A rotated refresh token was used again", reference: "RFC 9700 §4.14.2",
                fix:
                    "store the new refresh token from each refresh response and never send the old one (the family is now revoked)",
                serverFix: "refuse a rotated refresh token and revoke its whole family")
        case .refreshRevoked:
            RuleEntry(
                title: "The refresh token is revoked or expired", reference: "RFC 6749 §6; RFC 7009 §2",
                fix: "sign the user in again", serverFix: "refuse revoked and expired refresh tokens")
        case .refreshRotation:
            RuleEntry(
                title: "Refresh tokens are not rotated", reference: "RFC 9700 §4.14.2",
                fix: "store the refresh token of each refresh response",
                serverFix: "issue a new refresh token with each refresh and refuse the old one")
        case .scope:
            RuleEntry(
                title: "A requested scope is not allowed", reference: "RFC 6749 §3.3, §5.2",
                fix: "request only the scopes configured for the client",
                serverFix: "answer scopes the client may not have with invalid_scope")
        case .accessTokenInvalid:
            RuleEntry(
                title: "The access token is missing, invalid, expired or revoked",
                reference: "RFC 6750 §3.1; RFC 9449 §7.1",
                fix: "send a current access token (refresh it, or sign in again)",
                serverFix: "answer 401 with WWW-Authenticate and error=invalid_token")
        case .tokenScheme:
            RuleEntry(
                title: "The token is sent with the wrong scheme", reference: "RFC 9449 §7.1, §7.2",
                fix: "send a DPoP-bound token as Authorization: DPoP with a proof; a Bearer token as Bearer",
                serverFix: "refuse a DPoP-bound token presented as Bearer")
        case .insufficientScope:
            RuleEntry(
                title: "The token lacks the scope this resource needs", reference: "RFC 6750 §3.1",
                fix: "request the scope (openid for UserInfo) in the authorization request",
                serverFix: "answer 403 insufficient_scope")
        case .revocation:
            RuleEntry(
                title: "A revoked token keeps working", reference: "RFC 7009 §2.1, §2.2",
                fix: "revoke with the client's own credentials, the token in the token parameter",
                serverFix: "make a revoked token inactive at once (and its refresh family)")
        case .introspectionOpen:
            RuleEntry(
                title: "Introspection answers callers that did not authenticate", reference: "RFC 7662 §2.1, §4",
                fix: "authenticate the introspection request as a client",
                serverFix: "require client authentication at the introspection endpoint")
        case .clientMetadata:
            RuleEntry(
                title: "The registration request's metadata is refused", reference: "RFC 7591 §3.2.2",
                fix: "send a JSON object naming a registration template in software_id, with a dcr-scoped token",
                serverFix: "answer bad client metadata with invalid_client_metadata")
        case .discoveryMissing:
            RuleEntry(
                title: "No discovery document", reference: "RFC 8414 §3",
                fix: "check the server URL",
                serverFix: "publish /.well-known/openid-configuration or /.well-known/oauth-authorization-server")
        case .issuerMismatch:
            RuleEntry(
                title: "The issuer is not the URL the document was fetched from", reference: "RFC 8414 §3.3",
                fix: "use the issuer's exact URL as the server URL",
                serverFix: "set the issuer to the exact base URL clients use (scheme, host, port, path)")
        case .endpointsOffOrigin:
            RuleEntry(
                title: "Endpoints on another origin than the issuer's", reference: "RFC 8414 §2",
                fix: "check the server's public URL setting",
                serverFix: "serve the endpoints from the issuer's origin, or check them one by one before trusting them"
            )
        case .endpointMissing:
            RuleEntry(
                title: "A required endpoint is not advertised", reference: "RFC 8414 §2",
                fix: "check the server's configuration",
                serverFix: "advertise authorization_endpoint, token_endpoint and jwks_uri")
        case .jwksPrivate:
            RuleEntry(
                title: "The JWKS publishes private key members", reference: "RFC 7517 §5; RFC 8414 §2",
                fix: "treat the server's keys as compromised",
                serverFix: "publish public keys only, and replace the exposed keys")
        case .pkceS256Unadvertised:
            RuleEntry(
                title: "S256 is not among the advertised PKCE methods", reference: "RFC 8414 §2; RFC 9700 §2.1.1",
                fix: "use S256 anyway",
                serverFix: "advertise code_challenge_methods_supported with S256 (and not plain)")
        case .dpopAlgorithms:
            RuleEntry(
                title: "The advertised DPoP algorithms are missing or weak", reference: "RFC 9449 §5.1",
                fix: "sign proofs with ES256",
                serverFix: "advertise dpop_signing_alg_values_supported with asymmetric algorithms only")
        case .haapiAccept:
            RuleEntry(
                title: "The HAAPI request does not accept application/vnd.auth+json", reference: "HAAPI: media types",
                fix: "send Accept: application/vnd.auth+json (the SDK does)",
                serverFix: "answer HAAPI requests only when they accept the HAAPI media type")
        case .haapiTokenMissing:
            RuleEntry(
                title: "No HAAPI access token with the DPoP scheme", reference: "HAAPI: access token; RFC 9449 §7.1",
                fix:
                    "obtain a HAAPI token first (attestation or client credentials) and send Authorization: DPoP <token>",
                serverFix: "refuse HAAPI requests without a DPoP-bound HAAPI token")
        case .haapiTokenInvalid:
            RuleEntry(
                title: "The HAAPI access token is invalid, expired or revoked", reference: "HAAPI: access token",
                fix: "obtain a new HAAPI token (the SDK does this when it sees this error)",
                serverFix: "refuse expired and revoked HAAPI tokens with invalid_token")
        case .attestationRefused:
            RuleEntry(
                title: "The client's attestation was refused",
                reference: "HAAPI: client attestation; draft-ietf-oauth-attestation-based-client-auth",
                fix:
                    "ask for a new challenge, attest with the same key as the DPoP proofs, and check the client's attestation policy",
                serverFix: "issue attestation tokens only for challenges it issued, once, to the attested key")
        case .attestationTokenInvalid:
            RuleEntry(
                title: "The client attestation token (CAT) is invalid, expired or already used",
                reference: "HAAPI: client attestation",
                fix: "use each CAT once, right after obtaining it, for the client it was issued to",
                serverFix: "accept each CAT once, before it expires, for its client")
        case .sessionMissing:
            RuleEntry(
                title: "The flow request has no Session-Id", reference: "HAAPI: Session-Id",
                fix: "send back the Set-Session-Id of the flow's previous response in Session-Id",
                serverFix: "continue a flow only for requests that carry its Session-Id")
        case .sessionMismatch:
            RuleEntry(
                title: "The Session-Id belongs to another HAAPI token", reference: "HAAPI: Session-Id",
                fix: "continue a flow with the HAAPI token and DPoP key that started it",
                serverFix: "continue a flow only with the HAAPI token (and DPoP key) that started it")
        case .flowExpired:
            RuleEntry(
                title: "The flow has expired or does not exist", reference: "HAAPI: flows",
                fix: "start the flow again from the authorize request",
                serverFix: "answer an unknown flow with a problem, not a step of another flow")
        case .flowState:
            RuleEntry(
                title: "The request does not fit the flow's current step", reference: "HAAPI: flows",
                fix: "follow the actions of the latest representation, not an earlier one",
                serverFix: "answer out-of-step requests with a problem")
        case .flowSubject:
            RuleEntry(
                title: "A step proved another user than the one signing in", reference: "HAAPI: flows",
                fix:
                    "complete every step of a login as the user its first step identified; start a new flow for another",
                serverFix: "fix the flow's subject at its first step and refuse a later factor of another user")
        case .invalidInput:
            RuleEntry(
                title: "A form field is missing or invalid", reference: "HAAPI: invalid-input problem",
                fix: "fill every field the form declares, within its limits; the problem names each field",
                serverFix: "answer with an invalid-input problem naming each field")
        case .incorrectCredentials:
            RuleEntry(
                title: "The credentials are not correct", reference: "HAAPI: incorrect-credentials problem",
                fix: "check the user's name and password (the demo user is in haapi serve's summary)",
                serverFix: "answer wrong credentials without saying which part was wrong")
        case .authenticationFailed:
            RuleEntry(
                title: "The authentication did not succeed", reference: "HAAPI: authentication-failed problem",
                fix: "start the authentication again", serverFix: "end a failed authentication with a problem")
        case .actionsOffOrigin:
            RuleEntry(
                title: "Actions or links leave the server's origin", reference: "HAAPI: representations",
                fix: "check the server's public URL",
                serverFix:
                    "serve every HAAPI action from the issuer's origin; clients refuse to send their token elsewhere")
        case .passkeyOrigin:
            RuleEntry(
                title: "The passkey response comes from an origin the relying party does not allow",
                reference: "WebAuthn Level 3 §7.1 (9), §7.2 (13)",
                fix: "use the page or app associated with the RP ID (the server's passkeys.origins)",
                serverFix: "compare clientDataJSON.origin with the allowed origins")
        case .passkeyRPID:
            RuleEntry(
                title: "The authenticator data is for another RP ID",
                reference: "WebAuthn Level 3 §7.1 (13), §7.2 (15)",
                fix: "create and use the passkey for the server's RP ID (its host name, not an IP address)",
                serverFix: "compare rpIdHash with the SHA-256 of the RP ID")
        case .passkeyChallenge:
            RuleEntry(
                title: "The challenge is not one the relying party issued, or was used",
                reference: "WebAuthn Level 3 §7.1 (8), §7.2 (12)",
                fix: "answer the latest challenge, once",
                serverFix: "accept each challenge once, from the session it was issued to")
        case .passkeySignature:
            RuleEntry(
                title: "The assertion's signature does not verify with the registered key",
                reference: "WebAuthn Level 3 §7.2 (20)",
                fix: "use a passkey registered for this user at this server",
                serverFix: "verify assertions with the credential's registered public key")
        case .passkeyCounter:
            RuleEntry(
                title: "The signature counter did not increase", reference: "WebAuthn Level 3 §7.2 (21), §6.1.1",
                fix: "the authenticator may be cloned: register a new passkey",
                serverFix: "refuse a counter that does not increase (when it is not zero)")
        case .passkeyUserPresence:
            RuleEntry(
                title: "User presence or verification is missing",
                reference: "WebAuthn Level 3 §7.1 (14)(15), §7.2 (16)(17)",
                fix: "let the authenticator verify the user (userVerification required)",
                serverFix: "require UP, and UV where the policy says so")
        case .passkeyInvalid:
            RuleEntry(
                title: "The passkey response is malformed or not accepted", reference: "WebAuthn Level 3 §7.1, §7.2",
                fix: "send the authenticator's response as the browser or platform API returned it",
                serverFix: "answer malformed WebAuthn responses with an error naming the part")
        case .passkeySession:
            RuleEntry(
                title: "The relying party's session is missing or expired", reference: "docs/PASSKEYS.md",
                fix: "sign in again", serverFix: "refuse expired sessions")
        case .authHubRefused:
            RuleEntry(
                title: "The Authentication Hub refused the step", reference: "docs/AUTHHUB.md",
                fix:
                    "read the answer's errorCode and errorMessage (AHServerError names each code), and follow the flow's X-Flow-State",
                serverFix: "answer each refused step with an errorCode the client can act on")
        case .localOnly:
            RuleEntry(
                title: "Admin and inspector pages answer this machine only", reference: "docs/SECURITY.md",
                fix: "open the page from this machine, at the server's own address, not from another site",
                serverFix: "serve administration on loopback only, to the server's own Host, without foreign Origin")
        case .notFound:
            RuleEntry(
                title: "No such endpoint", reference: "RFC 9110 §15.5.5",
                fix: "check the path against the discovery document", serverFix: "answer unknown paths with 404")
        case .storeFailure:
            RuleEntry(
                title: "The server's database failed", reference: "RFC 6749 §5.2 (server_error)",
                fix: "retry; the server's log has the database error",
                serverFix: "answer a database failure with 500, never as a refusal")
        case .serverError:
            RuleEntry(
                title: "The server failed to answer", reference: "RFC 9110 §15.6.1",
                fix: "retry; the server's log has the error", serverFix: "log the failure with its cause")
        case .refused:
            RuleEntry(
                title: "The request was refused", reference: "RFC 9110 §15.5",
                fix: "read the response body for the reason", serverFix: "say why in the response body")
        }
    }
}

extension Rule {
    /// The rule's catalogue entry.
    package var entry: RuleEntry { RuleCatalogue.entry(self) }
}
