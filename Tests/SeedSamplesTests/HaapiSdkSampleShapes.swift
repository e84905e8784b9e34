// The call shapes of seed 000's samples (the HAAPI SDK), written the way an app holds them: inside a
// `@MainActor` view controller, completion handlers calling the controller's own methods. This file must
// compile in Swift 6 and in Swift 5 language mode (SeedSamplesSwift5Tests compiles the same file); the test
// at the end runs the shapes against `haapi serve`'s code in process.
import Foundation
@_spi(Tooling) import HaapiSdk

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@MainActor
final class FlowViewController {
    var haapiManager: HaapiManager!
    var oauthTokenManager: OAuthTokenManager?
    var haapiConfiguration: HaapiConfiguration
    var results: [String] = []
    var lastStep: HaapiRepresentation?
    var lastTokens: SuccessfulTokenResponse?
    var lastError: Error?

    init(haapiConfiguration: HaapiConfiguration) {
        self.haapiConfiguration = haapiConfiguration
    }

    static func seedShapedConfiguration(server: String) -> HaapiConfiguration {
        let baseURL = URL(string: server)!
        return HaapiConfiguration(
            name: "sample-flow-" + UUID().uuidString,
            clientId: "haapi-demo",
            baseURL: baseURL,
            tokenEndpointURL: URL(string: "/oauth/token", relativeTo: baseURL)!,
            authorizationEndpointURL: URL(string: "/oauth/authorize", relativeTo: baseURL)!,
            appRedirect: "app://haapi",
            httpHeadersProvider: nil,
            authorizationParametersProvider: nil)
    }

    // The accessor, built from a synchronous method such as viewDidLoad.
    func buildAccessors(dcrConfiguration: DCRConfiguration) {
        let haapiAccessor: HaapiAccessor = HaapiAccessorBuilder(haapiConfiguration: haapiConfiguration)
            .setDCRConfiguration(configuration: dcrConfiguration)
            .build()
        haapiManager = haapiAccessor.haapiManager
        oauthTokenManager = haapiAccessor.oAuthTokenManager
    }

    // An accessor for the OAuth side only, e.g. to refresh at launch without a flow.
    func buildOAuthAccessor(dcrConfiguration: DCRConfiguration) -> OAuthTokenManager {
        let oauthAccessor: OAuthAccessor = HaapiAccessorBuilder(haapiConfiguration: haapiConfiguration)
            .setHaapiAccessorOption(option: .oauth)
            .setDCRConfiguration(configuration: dcrConfiguration)
            .build()
        return oauthAccessor.oAuthTokenManager
    }

    func makeManager() {
        do {
            haapiManager = try HaapiManager(haapiConfiguration: haapiConfiguration)
        } catch let haapiError as HaapiError {
            handleHaapiError(haapiError)
        } catch {
            handleError(error)
        }
    }

    func startFlow() {
        haapiManager.start { [weak self] haapiResult in
            self?.handleHaapiResult(haapiResult)
        }
    }

    func handleHaapiResult(_ haapiResult: HaapiResult) {
        switch haapiResult {
        case .representation(let haapiRepresentation): handleHaapiRepresentation(haapiRepresentation)
        case .problem(let problemRepresentation): results.append("problem \(problemRepresentation.type)")
        case .error(let anError): handleError(anError)
        }
    }

    func handleHaapiRepresentation(_ haapiRepresentation: HaapiRepresentation) {
        lastStep = haapiRepresentation
        switch haapiRepresentation {
        case let step as RedirectionStep: results.append("redirection \(step.type)")
        case let step as AuthenticatorSelectorStep: results.append("selector \(step.authenticators.count)")
        case let step as InteractiveFormStep: results.append("form \(step.actions.count)")
        case let step as PollingStep: results.append("polling \(step.pollingProperties.status)")
        case let step as ContinueSameStep: results.append("continue \(step.type)")
        case let step as UserConsentStep: results.append("consent \(step.type)")
        case let step as GenericRepresentationStep: results.append("generic \(step.type)")
        case let step as ClientOperationStep: results.append("operation \(step.type)")
        case let step as OAuthAuthorizationResponseStep: exchange(step)
        default: results.append("other \(haapiRepresentation.type)")
        }
    }

    func submit(formActionModel: FormActionModel, parameters: [String: Any]) {
        haapiManager.submitForm(formActionModel, parameters: parameters) { [weak self] haapiResult in
            self?.handleHaapiResult(haapiResult)
        }
    }

    func followLink(_ link: Link) {
        haapiManager.followLink(link) { [weak self] haapiResult in
            self?.handleHaapiResult(haapiResult)
        }
    }

    func exchange(_ authResponseStep: OAuthAuthorizationResponseStep) {
        let code = authResponseStep.oauthAuthorizationResponseProperties.code!
        let dPoP = haapiManager.dpop
        // The accessor's manager when there is one (a DCR client differs from the configured one), else a manual one.
        let oauthTokenManager = self.oauthTokenManager ?? OAuthTokenManager(oauthTokenConfiguration: haapiConfiguration)
        self.oauthTokenManager = oauthTokenManager
        oauthTokenManager.fetchAccessToken(with: code, dpop: dPoP) { [weak self] tokenResponse in
            self?.handleTokenResponse(tokenResponse)
        }
    }

    func refresh(_ refreshToken: String) {
        oauthTokenManager?.refreshAccessToken(with: refreshToken) { [weak self] tokenResponse in
            self?.handleTokenResponse(tokenResponse)
        }
    }

    func handleTokenResponse(_ tokenResponse: TokenResponse) {
        switch tokenResponse {
        case .successfulToken(let successfulToken):
            lastTokens = successfulToken
            results.append("tokens \(successfulToken.accessToken.count) \(successfulToken.refreshToken != nil)")
        case .errorToken(let errorTokenResponse):
            results.append("token error \(errorTokenResponse.error) \(errorTokenResponse.errorDescription ?? "")")
        case .error(let anError): handleError(anError)
        }
    }

    func handleError(_ error: Error) {
        lastError = error
        guard let haapiError = error as? HaapiError else { return }
        switch haapiError {
        case .assertionFailure(let cause): describe(cause)
        case .attestationFailure(let cause): describe(cause)
        case .attestationKeyGenFailure(let cause): describe(cause)
        case .attestationNotSupported: results.append("attestation not supported")
        case .attestationRefusedByServer(let cause): describe(cause)
        case .communication(let message, let cause):
            results.append(message)
            describe(cause)
        case .dpopKeyCreationFailure(let cause): describe(cause)
        case .dpopProofCreationFailure(let cause): describe(cause)
        case .dpopProofFailure(let message, let cause):
            results.append(message)
            describe(cause)
        case .haapiTokenManagerAlreadyExists(let name): results.append(name)
        case .haapiTokenManagerIsClosed: results.append("closed")
        case .haapiTokenManagerIsExpired: results.append("expired")
        case .illegalState(let message): results.append(message)
        case .invalidConfiguration(let reason): results.append(reason)
        case .invalidStatusCode(let statusCode): results.append("\(statusCode)")
        case .serverError(let error, let errorDescription, let statusCode):
            results.append("\(error) \(errorDescription) \(statusCode)")
        }
    }

    private func describe(_ cause: Error?) {
        results.append(cause.map { "\($0)" } ?? "no cause")
    }

    func handleHaapiError(_ error: HaapiError) {
        let haapiError: IdsvrError = error
        switch haapiError.recoverySuggestion {
        case .retryable(let condition): results.append("retry when \(condition)")
        case .newHaapiFlow: results.append("new flow")
        case .nonRecoverable(let action): results.append("fix: \(action)")
        }
    }

    // A refresh that tells the DPoP failures apart, then a fallback configuration with a software key.
    func refreshWithFallback(token: String) {
        let tokenManager = OAuthTokenManager(oauthTokenConfiguration: haapiConfiguration)
        tokenManager.refreshAccessToken(with: token) { [weak self] tokenResponse in
            if case .error(let cause) = tokenResponse, case HaapiError.dpopProofFailure(let message, let error) = cause
            {
                self?.results.append("dpop failure \(message) \(String(describing: error))")
                return
            }
            self?.handleTokenResponse(tokenResponse)
        }
        let fallbackTokenBoundConfiguration = BoundedTokenConfiguration(keyPairType: CryptoKeyType.p256)
        let fallbackHaapiConfiguration = HaapiConfiguration(
            name: "sample-fallback",
            clientId: haapiConfiguration.clientId,
            baseURL: haapiConfiguration.baseURL,
            tokenEndpointURL: haapiConfiguration.tokenEndpointURL,
            authorizationEndpointURL: haapiConfiguration.authorizationEndpointURL,
            appRedirect: haapiConfiguration.appRedirect,
            tokenBoundConfiguration: fallbackTokenBoundConfiguration)
        haapiConfiguration = fallbackHaapiConfiguration
    }

    func configurationWithListenerAndBundle() -> HaapiConfiguration {
        let baseURL = haapiConfiguration.baseURL
        return HaapiConfiguration(
            name: "sample-listener",
            clientId: "haapi-demo",
            baseURL: baseURL,
            tokenEndpointURL: URL(string: "/oauth/token", relativeTo: baseURL)!,
            authorizationEndpointURL: URL(string: "/oauth/authorize", relativeTo: baseURL)!,
            appRedirect: "app://haapi",
            applicationBundle: Bundle.main,
            tokenEndpointResponseListener: TokenListener())
    }

    func clientAuthentication(
        pkcs12Filename: String, passphrase: String, serverPEMFilename: String, appBundle: Bundle,
        rsaPrivateKeyPEM: String, serverBaseURL: URL
    ) throws -> [ClientAuthenticationMethod] {
        let secret = ClientAuthenticationMethodSecret("sample-secret")
        let mtls = try ClientAuthenticationMethodMTLS(
            pkcs12Filename: pkcs12Filename,
            pkcs12Passphrase: passphrase,
            serverPEMFilename: serverPEMFilename,
            isValidatingHostname: true,
            bundle: appBundle)
        let pinned = try ClientAuthenticationMethodMTLS(
            pkcs12Filename: pkcs12Filename,
            pkcs12Passphrase: passphrase,
            serverKeyPinnings: [
                KeyPinning(
                    hostname: "127.0.0.1",
                    publicKeyHash: "Kjuy4mT3fbeDozRNP6rTjWRYmbs79Begb5Roq+DUu7s=")
            ],
            bundle: appBundle)
        let asymmetric = try ClientAuthenticationMethodJWTAsymmetric(
            pemFilename: rsaPrivateKeyPEM, signatureAlgorithm: .rs256, bundle: appBundle)
        let symmetric = ClientAuthenticationMethodJWTSymmetric(
            signatureAlgorithm: .hs256, secretKey: "a-shared-secret-of-enough-length-for-hs256")
        let dcrEndpointURL = URL(string: "/oauth/register", relativeTo: serverBaseURL)
        _ = DCRConfiguration(templateClientId: "haapi-dcr-template", clientRegistrationEndpointUrl: dcrEndpointURL)
        return [secret, mtls, pinned, asymmetric, symmetric]
    }

    func configureLogging() {
        HaapiLogger.followUpTags = DriverFollowUpTag.allCases + SdkFollowUpTag.allCases
        HaapiLogger.followUpTags = SdkFollowUpTag.allCases
        HaapiLogger.isDebugEnabled = true
        HaapiLogger.isInfoEnabled = true
        HaapiLogger.isWarningEnabled = true
        HaapiLogger.isErrorEnabled = true
        HaapiLogger.isSensitiveValueMasked = true
        HaapiLogger.appendLogSink(SampleLogSink())
    }
}

// A listener as the seed writes it: a plain class that keeps the last error it saw.
class TokenListener: OAuthTokenManager.TokenEndpointResponseListener {
    var errorContent: ErrorHTTPURLResponseContent?
    var nonces: [String] = []

    func onSuccess(_ value: OAuthTokenManager.SuccessTokenHTTPURLResponseContent) {
        let tokens = value.successfulTokenResponse
        nonces.append("\(tokens.accessToken.count) \(tokens.refreshToken ?? "") \(tokens.expiresIn ?? 0)")
        if let accessToken = value.dataAsDictionary["access_token"] as? String { nonces.append(accessToken) }
        if let httpURLResponse = value.httpURLResponse,
            let contentType = httpURLResponse.allHeaderFields["Content-Type"] as? String
        {
            nonces.append(contentType)
        }
        if let nonce = value.headerFields["dpop-nonce"] { nonces.append(nonce) }
        assert(value.error == nil)
    }

    func onError(_ value: ErrorHTTPURLResponseContent) {
        nonces.append(value.error.localizedDescription)
        if let description = value.dataAsDictionary["error_description"] as? String { nonces.append(description) }
        errorContent = value
    }

    func onTokenError(_ value: OAuthTokenManager.ErrorTokenHTTPURLResponseContent) {
        nonces.append("\(value.errorTokenResponse.error) \(value.errorTokenResponse.errorDescription ?? "")")
        if let error = value.dataAsDictionary["error"] as? String { nonces.append(error) }
        if let httpURLResponse = value.httpURLResponse,
            let contentType = httpURLResponse.allHeaderFields["Content-Type"] as? String
        {
            nonces.append(contentType)
        }
    }
}

// A log sink as the seed writes it: a plain, non-final class.
class SampleLogSink: LogSink {
    func writeLog(logType: LogType, followUpTag: any FollowUpTag, message: String, file: String, line: Int) {
        // Filtering or export would go here.
    }
}
