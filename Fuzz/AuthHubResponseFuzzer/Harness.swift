import Foundation
import FuzzSupport

@testable import AuthHub

// Authentication Hub responses as the client reads them: the body through JSONSerialization (as
// AHAPIRequest does), then every view the SDK takes of it: the core result, the server error, the flow
// response with its factors, credentials and step data, and the branding settings' field list.
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    guard let body = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else { return 0 }
    for status in [200, 400] {
        let result = AHCore.result(AHRequestResult(statusCode: status, headers: [:], data: body))
        _ = (result.isSuccess, result.serverError, result.nextAction, result.flowState)
        _ = AHServerError(body: body, httpStatus: status)
        let response = AHFlowResponse(statusCode: status, data: body)
        _ = (response.nextAction, response.flowState, response.currentFactors, response.credentials, response.stepData)
        _ = (response.idToken, response.sessionToken, response.authCompleteUrl)
    }
    _ = AHBrandingSettings.fieldsToBeEncrypted(in: body)
    return 0
}

@_cdecl("AuthHubResponseFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}
