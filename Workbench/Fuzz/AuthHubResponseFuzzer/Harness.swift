import Foundation
import FuzzSupport
@_spi(Tooling) import HaapiModel

@testable import AuthHub

// Authentication Hub responses as the client reads them: the body through our JSON parser with the request
// object's limits (as AuthHubBasicRequest does), then every view the SDK takes of it: the core result, the
// server error, the flow response with its factors, credentials and step data, the Foundation dictionary the
// seed's API hands out and its way back, and the branding settings' field list.
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    guard let body = (try? JSONParser(limits: AuthHubBasicRequest.parserLimits).parse(Data(bytes)))?.objectValue
    else { return 0 }
    for status in [200, 400] {
        let result = AHCore.result(AHRequestResult(statusCode: status, headers: [:], json: body))
        _ = (result.isSuccess, result.serverError, result.nextAction, result.flowState)
        _ = AHServerError(body: body, httpStatus: status)
        let response = AHFlowResponse(statusCode: status, json: body)
        _ = (response.nextAction, response.flowState, response.currentFactors, response.credentials, response.stepData)
        _ = (response.idToken, response.sessionToken, response.authCompleteUrl)
    }
    let dictionary = body.foundationDictionary
    precondition(JSONObject(foundationDictionary: dictionary) != nil, "a parsed body must bridge back")
    _ = AHBrandingSettings.fieldsToBeEncrypted(in: body)
    return 0
}

@_cdecl("AuthHubResponseFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}
