import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The raw side of a token-endpoint response: for apps that need headers (`dpop-nonce`) or members the
/// typed responses do not carry.
public class HTTPURLResponseContent: @unchecked Sendable {
    // Immutable after init.
    public let data: Data
    /// The JSON body as a dictionary (`[:]` when the body is not a JSON object).
    public let dataAsDictionary: [String: any Sendable]
    /// Header names are lower-cased.
    public let headerFields: [String: String]
    public let httpURLResponse: HTTPURLResponse?
    public let error: (any Error)?

    init(_ response: HttpResponse?, error: (any Error)?) {
        data = response?.body ?? Data()
        let object = response.flatMap { try? JSONParser(limits: .init(maxBytes: 1024 * 1024, maxDepth: 32)).parse($0.body).objectValue } ?? [:]
        var dictionary: [String: any Sendable] = [:]
        for (name, value) in object { dictionary[name] = value.foundationValue }
        dataAsDictionary = dictionary
        headerFields = response?.headers ?? [:]
        httpURLResponse = response.flatMap {
            HTTPURLResponse(url: $0.url, statusCode: $0.statusCode, httpVersion: "HTTP/1.1", headerFields: $0.headers)
        }
        self.error = error
    }
}

/// A response that could not be read as a token response, or no response at all.
public final class ErrorHTTPURLResponseContent: HTTPURLResponseContent, @unchecked Sendable {
    public var errorValue: any Error { error ?? HaapiError.illegalState(message: "no error") }
}

/// Told about every token-endpoint response `OAuthTokenManager` receives.
public protocol TokenEndpointResponseListener: Sendable {
    func onSuccess(_ value: OAuthTokenManager.SuccessTokenHTTPURLResponseContent)
    func onTokenError(_ value: OAuthTokenManager.ErrorTokenHTTPURLResponseContent)
    func onError(_ value: ErrorHTTPURLResponseContent)
}

extension OAuthTokenManager {
    public typealias TokenEndpointResponseListener = HaapiSdk.TokenEndpointResponseListener

    public final class SuccessTokenHTTPURLResponseContent: HTTPURLResponseContent, @unchecked Sendable {
        public let successfulTokenResponse: SuccessfulTokenResponse

        init(_ response: HttpResponse, _ token: SuccessfulTokenResponse) {
            successfulTokenResponse = token
            super.init(response, error: nil)
        }
    }

    public final class ErrorTokenHTTPURLResponseContent: HTTPURLResponseContent, @unchecked Sendable {
        public let errorTokenResponse: ErrorTokenResponse

        init(_ response: HttpResponse, _ error: ErrorTokenResponse) {
            errorTokenResponse = error
            super.init(response, error: nil)
        }
    }
}

extension JSONValue {
    /// Foundation values (String, NSNumber-like numbers, Bool, arrays, dictionaries, NSNull) for APIs
    /// shaped like JSONSerialization's output.
    var foundationValue: any Sendable {
        switch self {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .string(let text): return text
        case .number(let number): return number.intValue.map { $0 as any Sendable } ?? number.doubleValue.map { $0 as any Sendable } ?? number.literal
        case .array(let items): return items.map(\.foundationValue)
        case .object(let members):
            var dictionary: [String: any Sendable] = [:]
            for (name, value) in members { dictionary[name] = value.foundationValue }
            return dictionary
        }
    }
}
