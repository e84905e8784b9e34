import Foundation
@_spi(Tooling) import HaapiSdk

/// Typed models from JSON for an app's unit tests: the steps, problems and token responses its own code
/// handles, read exactly as the SDK reads a server's answer (`HaapiDecodingError` when the JSON is not one).
public enum IdsvrHaapiSdkTestUtils {
    /// The step a JSON text describes (as a server would send it).
    public static func step(json: String) throws -> any HaapiRepresentation {
        try HaapiDecoder().decodeRepresentation(Data(json.utf8))
    }

    /// The step in a file (for instance one of the vendor's published fixtures, or a recording).
    public static func step(contentsOf file: URL) throws -> any HaapiRepresentation {
        try HaapiDecoder().decodeRepresentation(try Data(contentsOf: file))
    }

    /// The problem a JSON text describes.
    public static func problem(json: String) throws -> any ProblemRepresentation {
        try HaapiDecoder().decodeProblem(Data(json.utf8))
    }

    /// The token endpoint's answer a JSON text describes: tokens, an OAuth error, or `.error`.
    public static func tokenResponse(json: String) -> TokenResponse {
        guard let object = try? JSONParser().parse(json).objectValue else {
            return .error(HaapiError.communication(message: "the token response is not a JSON object", cause: nil))
        }
        return HaapiModel.TokenResponseFactory.make(from: object.foundationDictionary)
    }

    /// A HAAPI step as a scripted response (`application/vnd.auth+json`), or a problem
    /// (`application/problem+json`, status 400) when its `type` is a URI.
    public static func response(json: String, statusCode: Int? = nil) -> ResponseAndData {
        let type = (try? JSONParser().parse(json))?["type"]?.stringValue ?? ""
        let isProblem = type.contains("://")
        return ResponseAndData(
            statusCode: statusCode ?? (isProblem ? 400 : 200),
            headers: ["content-type": isProblem ? Haapi.problemMediaType : Haapi.mediaType], data: Data(json.utf8),
            url: URL(fileURLWithPath: "/"))
    }

    /// A token endpoint's answer with a DPoP-bound access token (and a refresh token), for any request.
    static func bearerTokenResponse(for url: URL) -> HTTPResponse {
        let body =
            #"{"access_token":"test-access-token","token_type":"DPoP","expires_in":300,"refresh_token":"test-refresh-token","scope":"openid"}"#
        return HTTPResponse(
            statusCode: 200, headers: ["content-type": "application/json"], body: Data(body.utf8), url: url)
    }
}
