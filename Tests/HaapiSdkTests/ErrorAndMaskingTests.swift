import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

@Suite("HaapiError and secret masking")
struct ErrorAndMaskingTests {
    @Test("every HaapiError case has a code, texts and the recovery the docs promise")
    func recoverySuggestions() {
        let cases: [(HaapiError, IdsvrErrorHandling)] = [
            (.assertionFailure(cause: nil), .nonRecoverable(action: .fixIntegration)),
            (.attestationFailure(cause: nil), .retryable(condition: .afterDelay)),
            (.attestationKeyGenFailure(cause: nil), .retryable(condition: .whenAppIsInForeground)),
            (.attestationNotSupported, .nonRecoverable(action: .useDCRFallback)),
            (.attestationRefusedByServer(cause: nil), .nonRecoverable(action: .useDCRFallback)),
            (.communication(message: "reset", cause: nil), .retryable(condition: .immediately)),
            (.dpopKeyCreationFailure(cause: nil), .retryable(condition: .whenAppIsInForeground)),
            (.dpopProofCreationFailure(cause: nil), .retryable(condition: .whenAppIsInForeground)),
            (.dpopProofFailure(message: "m", cause: nil), .retryable(condition: .whenAppIsInForeground)),
            (.haapiTokenManagerAlreadyExists(name: "n"), .nonRecoverable(action: .fixIntegration)),
            (.haapiTokenManagerIsClosed, .newHaapiFlow),
            (.haapiTokenManagerIsExpired, .newHaapiFlow),
            (.illegalState(message: "m"), .nonRecoverable(action: .fixIntegration)),
            (.invalidConfiguration(reason: "r"), .nonRecoverable(action: .fixConfiguration)),
            (.invalidStatusCode(statusCode: 418), .newHaapiFlow),
            (
                .serverError(error: "use_dpop_nonce", errorDescription: "", statusCode: 401),
                .retryable(condition: .immediately)
            ),
            (
                .serverError(error: "server_error", errorDescription: "", statusCode: 503),
                .retryable(condition: .afterDelay)
            ),
            (
                .serverError(error: "invalid_client", errorDescription: "", statusCode: 401),
                .nonRecoverable(action: .fixConfiguration)
            ),
            (.serverError(error: "invalid_grant", errorDescription: "", statusCode: 400), .newHaapiFlow),
        ]
        var codes = Set<String>()
        for (error, expected) in cases {
            #expect(error.recoverySuggestion == expected, "\(error.error)")
            #expect(!error.errorDescription.isEmpty && !error.failureReason.isEmpty)
            codes.insert(error.error)
            let asIdsvr: any IdsvrError = error
            #expect(asIdsvr.error == error.error)
        }
        #expect(codes.count == cases.count)  // each case (and each server error) has its own code
        let cause = TransportError.timedOut(after: 3)
        #expect(HaapiError.communication(message: "x", cause: cause).cause as? TransportError == cause)
        #expect(HaapiError.communication(message: "x", cause: cause).description.contains("no answer within 3 s"))
    }

    @Test("descriptions never show secrets")
    func masking() async throws {
        let secret = "s3cr3t-value-that-must-not-leak"
        #expect(!"\(ClientAuthenticationMethodSecret(secret))".contains(secret))
        #expect(
            !"\(ClientAuthenticationMethodJWTSymmetric(signatureAlgorithm: .hs256, secretKey: secret))".contains(secret)
        )
        #expect(!"\(AccessToken(value: secret, expiresOn: Date()))".contains(secret))
        let stub = StubTransport()
        stub.on(path: "/token") {
            StubTransport.json(
                $0, 200,
                ["access_token": .string(secret), "refresh_token": .string(secret), "id_token": .string(secret)])
        }
        let base = URL(string: "https://masking.example/token")!
        let oauth = OAuthTokenManager(
            oauthTokenConfiguration: HaapiConfiguration(
                name: "mask", clientId: "c", baseURL: base, tokenEndpointURL: base, authorizationEndpointURL: base,
                appRedirect: "app://c", transport: stub,
                tokenBoundConfiguration: UnboundedTokenConfiguration()))
        // The completion-handler form, as the seed shows it.
        let response = await withCheckedContinuation { continuation in
            oauth.fetchAccessToken(with: "code") { continuation.resume(returning: $0) }
        }
        let token = try response.success()
        #expect(token.accessToken == secret)
        #expect(!"\(token)".contains(secret))
        #expect("\(token)".contains("accessToken: *****"))
    }
}
