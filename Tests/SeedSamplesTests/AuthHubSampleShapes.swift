// The call shapes of seed 002's samples (the Authentication Hub core SDK): a request subclass that adds
// headers per endpoint, the FIDO SDK set-up, and the completion-block calls that read the encryption
// settings, start the flow and encrypt the password (with the seed's `encryptdData` spelling).
@_spi(Tooling) import AuthHub
import Foundation

final class SampleAuthHubRequest: AuthHubBasicRequest, @unchecked Sendable {
    func addRequestHeaders(endpoint: AuthHubEndpoint) -> [String: Any] {
        let urlPath = endpoint.path
        var newHeaders = endpoint.headers
        switch urlPath {
        case .brandingSettings: newHeaders["X-Sample-Branding"] = "branding"
        case .authHubPublicKey: newHeaders["X-Sample-Key"] = "key"
        case .serverNonceGenerator: newHeaders["X-Sample-Nonce"] = "nonce"
        case .authEndpoint: newHeaders["X-Sample-Init"] = "init"
        case .registerChallengeGenerator, .registerChallengeVerifier: newHeaders["X-Sample-Reg"] = "reg"
        case .authChallengeGenerator, .authChallengeVerifier: newHeaders["X-Sample-Auth"] = "auth"
        case .txnSignChallengeGenerator, .txnSignChallengeVerifier: newHeaders["X-Sample-Txn"] = "txn"
        case .selectedFactor, .passwordAuthenticator, .otpGenerator, .otpVerifier:
            newHeaders["X-Sample-Factor"] = "factor"
        @unknown default: newHeaders["X-Sample-Default"] = "default"
        }
        return newHeaders
    }

    override func sendRequest(endpoint: AuthHubEndpoint) async throws -> AHRequestResult {
        let newHeaders = addRequestHeaders(endpoint: endpoint)
        endpoint.setRequestHeaders(newHeaders)
        return try await super.sendRequest(endpoint: endpoint)
    }
}

@MainActor
final class SampleSignInScreen {
    var messages: [String] = []
    var sentPassword: String?
    let ahCore: AHCore
    let requestObject = SampleAuthHubRequest()

    init(ahCore: AHCore = AHCore.getInstance()) {
        self.ahCore = ahCore
    }

    func setUpFIDO(serverHost: String, tenant: String) {
        let ahfidosdk = AHFIDOSDK.getInstance()
        let ahReqLogger = AuthHub.AHRequestLogger(fileName: nil)
        ahReqLogger.enableLog(enable: true)
        requestObject.setRequestLogger(requestLogger: ahReqLogger)
        ahfidosdk.initFIDO(serverHost: serverHost, tenant: tenant, authhubRequest: requestObject)
    }

    func startSignIn(serverHost: String, tenant: String, accessToken: String, paramBodyRequest: [String: Any]) {
        do {
            ahCore.setAuthHubRequestObject(authhubRequest: requestObject)
            var reqHeaders = [String: Any]()
            reqHeaders["Authorization"] = accessToken
            let brandingSettingsHeaders: [String: String] = [AHConstants.HttpHeader.KeyAz: accessToken]
            try ahCore.getFieldsToBeEncryptedInAuthFlow(
                serverHost: serverHost, tenant: tenant, requestHeaders: brandingSettingsHeaders
            ) { result in
                if result.code == AHResult.Code.SUCCESS {
                    let fieldsToBeEncrypted =
                        result.data[AHConstants.GenericKeys.FieldsToBeEncrypted] as? [String] ?? []
                    try self.ahCore.initAuth(
                        serverHost: serverHost, tenant: tenant, requestHeaders: reqHeaders,
                        authRequestParams: paramBodyRequest, fieldsTobeEncryptedList: fieldsToBeEncrypted
                    ) { response in
                        if let errorCode = response.data["errorCode"] as? String {
                            self.messages.append("error \(errorCode) \(response.data["errorMessage"] as? String ?? "")")
                        } else if let nextAction = response.data["nextaction"] as? String {
                            self.messages.append("next \(nextAction)")
                        }
                    }
                }
            }
        } catch {
            messages.append("not started: \(error.localizedDescription)")
        }
    }

    // Deprecated itself only so that its use of the seed's `encryptdData` spelling compiles without a warning.
    @available(*, deprecated, message: "uses the seed's encryptdData spelling on purpose")
    func sendPassword(serverUrl proxyUrl: String, accessToken: String, password plain: String) {
        var password = plain
        var reqHeaders = [String: Any]()
        reqHeaders["Authorization"] = accessToken
        do {
            try ahCore.isEncryptionRequiredForField(
                serverUrl: proxyUrl, requestHeaders: reqHeaders, fieldName: "password",
                completionBlock: { result in
                    if let errorCode = result.data["errorCode"] as? String {
                        self.messages.append("error \(errorCode)")
                    }
                    do {
                        let isPswdEncRequired = result.data[AHConstants.GenericKeys.PasswordField] as? Bool ?? false
                        if result.code == AHResult.Code.SUCCESS && isPswdEncRequired {
                            let encryptedPassword = try self.ahCore.encryptdData(plainText: password)
                            if !encryptedPassword.isEmpty { password = encryptedPassword }
                        }
                        self.sentPassword = password
                    } catch {
                        self.messages.append("\(error)")
                    }
                })
        } catch {
            messages.append("Error: message - \(error.localizedDescription)")
        }
    }
}
