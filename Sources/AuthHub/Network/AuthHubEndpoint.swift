import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One Authentication Hub call: where it goes, its headers and its JSON body.
///
/// A class, not a value: the seed's request objects change the endpoint they are handed
/// (`endpoint.setRequestHeaders(…)` on a parameter) and expect `super.sendRequest` to see the change.
public final class AuthHubEndpoint: Sendable {
    /// The calls the SDK makes. Paths are under `/<tenant>` (or a proxy URL); see
    /// ../shared/research/authhub-hanko.md A.2. `authHubPublicKey` and the transaction-signing pair are
    /// our dev server's paths (the vendor's are not public).
    public enum Path: String, Sendable, CaseIterable {
        /// The tenant's settings, with the fields to encrypt.
        case brandingSettings = "/auth/v1/BrandingSettings"
        /// The tenant's RSA public key.
        case authHubPublicKey = "/auth/v1/PublicKey"
        /// The nonce exchange that binds encrypted fields to a flow.
        case serverNonceGenerator = "/auth/v1/NonceGenerator"
        /// Starts a flow (`initAuth`).
        case authEndpoint = "/auth/v1/authenticate"
        /// Chooses a factor.
        case selectedFactor = "/auth/v1/SelectedFactor"
        /// Checks the password.
        case passwordAuthenticator = "/factor/v1/PasswordAuthenticator"
        /// Sends a one-time code.
        case otpGenerator = "/factor/v1/OTPGenerator"
        /// Checks a one-time code.
        case otpVerifier = "/factor/v1/OTPVerifier"
        /// Passkey registration options.
        case registerChallengeGenerator = "/factor/v1/FIDORegChallengeGenerator"
        /// Checks and stores a new passkey.
        case registerChallengeVerifier = "/factor/v1/FIDORegChallengeVerifier"
        /// Passkey sign-in options.
        case authChallengeGenerator = "/factor/v1/FIDOAuthChallengeGenerator"
        /// Checks a passkey assertion.
        case authChallengeVerifier = "/factor/v1/FIDOAuthChallengeVerifier"
        /// Transaction-signing options.
        case txnSignChallengeGenerator = "/factor/v1/FIDOTxnSignChallengeGenerator"
        /// Checks a transaction signature.
        case txnSignChallengeVerifier = "/factor/v1/FIDOTxnSignChallengeVerifier"

        /// `GET` for the settings and the public key, `POST` for everything else.
        public var method: String {
            switch self {
            case .brandingSettings, .authHubPublicKey: "GET"
            default: "POST"
            }
        }
    }

    /// Why a call could not be built.
    public enum BuildError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The address is not an http(s) URL.
        case invalidURL(String)
        /// Payload members without a JSON form, by name.
        case bodyNotJSON(String)

        public var description: String {
            switch self {
            case .invalidURL(let url): "not a usable URL: \(url)"
            case .bodyNotJSON(let detail): "the payload cannot be sent as JSON: \(detail)"
            }
        }
    }

    /// Which call this is.
    public let path: Path
    /// `https://host/tenant` (serverHost + tenant form) or a proxy URL that already names the tenant.
    public let baseURL: String
    /// Headers as strings (a value that is not a string is sent as its description) and the payload as JSON,
    /// or the names of the payload's members that have none (refused by `build()`).
    private struct Content: Sendable {
        var headers: [String: String] = [:]
        var payload: Result<JSONObject, BuildError> = .success([:])
    }
    private let content = LockedValue(Content())

    /// A call to `path` under `https://serverHost/tenant` (`serverHost` may carry its own scheme).
    public init(serverHost: String, tenant: String, path: Path) {
        let host = serverHost.hasPrefix("http") ? serverHost : "https://" + serverHost
        baseURL = host.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/" + tenant
        self.path = path
    }

    /// A call to `path` under a proxy URL that already names the tenant.
    public init(serverUrl: String, path: Path) {
        baseURL = serverUrl.hasSuffix("/") ? String(serverUrl.dropLast()) : serverUrl
        self.path = path
    }

    /// The headers that will be sent.
    public var headers: [String: Any] { content.get().headers }

    /// The same headers, typed.
    public var headerStrings: [String: String] { content.get().headers }

    /// The JSON body that will be sent (`[:]` when what was set has no JSON form).
    public var payload: [String: Any] {
        guard case .success(let object) = content.get().payload else { return [:] }
        return object.foundationDictionary
    }

    /// The body as our JSON value, or why it has none.
    public var jsonPayload: Result<JSONObject, BuildError> { content.get().payload }

    /// Sets the JSON body. Values need a JSON form (strings, numbers, booleans, `NSNull`, arrays and
    /// dictionaries of those, `JSONValue`); `build()` refuses a body with any other value and names it.
    @discardableResult
    public func setRequestPayloadParameters(_ parameters: [String: Any]) -> Self {
        let payload: Result<JSONObject, BuildError> =
            JSONObject(foundationDictionary: parameters).map { .success($0) }
            ?? .failure(.bodyNotJSON("\(JSONObject.membersWithoutJSONForm(in: parameters))"))
        content.withLock { $0.payload = payload }
        return self
    }

    /// Sets the JSON body from our JSON type (what the SDK's own calls use).
    @discardableResult
    public func setRequestPayload(_ payload: JSONObject) -> Self {
        content.withLock { $0.payload = .success(payload) }
        return self
    }

    /// Replaces the headers; values that are not strings are sent as their description.
    @discardableResult
    public func setRequestHeaders(_ headers: [String: Any]) -> Self {
        let strings = headers.mapValues { $0 as? String ?? "\($0)" }
        content.withLock { $0.headers = strings }
        return self
    }

    /// The call's full address, when `baseURL` and the path make one.
    public var url: URL? { URL(string: baseURL + path.rawValue) }

    /// The request as the SDK's transports send it: `Accept: application/json` unless the endpoint's headers
    /// set another, those headers, and for POSTs the JSON body with its `Content-Type`.
    public func httpRequest() throws -> HTTPRequest {
        guard let url, url.scheme == "https" || url.scheme == "http" else {
            throw BuildError.invalidURL(baseURL + path.rawValue)
        }
        let content = content.get()
        var request = HTTPRequest(method: path.method, url: url)
        request.setHeader("Accept", "application/json")
        for (name, value) in content.headers { request.setHeader(name, value) }
        if path.method == "POST" {
            let payload = try content.payload.get()
            request.body = Data(JSONValue.object(payload).serialized(sortedKeys: true).utf8)
            request.setHeader("Content-Type", "application/json")
        }
        return request
    }

    /// The request as Foundation's type.
    public func build() throws -> URLRequest {
        let http = try httpRequest()
        var request = URLRequest(url: http.url)
        request.httpMethod = http.method
        request.httpBody = http.body
        for (name, value) in http.headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }
}
