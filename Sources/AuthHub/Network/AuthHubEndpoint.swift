import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One Authentication Hub call: where it goes, its headers and its JSON body.
public final class AuthHubEndpoint: @unchecked Sendable {
    // Built and then read by one request at a time, as the seed's builder style implies.

    /// The calls the SDK makes. Paths are under `/<tenant>` (or a proxy URL); see
    /// ../shared/research/authhub-hanko.md A.2. `authHubPublicKey` and the transaction-signing pair are
    /// our dev server's paths (the vendor's are not public).
    public enum Path: String, Sendable, CaseIterable {
        case brandingSettings = "/auth/v1/BrandingSettings"
        case authHubPublicKey = "/auth/v1/PublicKey"
        case serverNonceGenerator = "/auth/v1/NonceGenerator"
        case authEndpoint = "/auth/v1/authenticate"
        case selectedFactor = "/auth/v1/SelectedFactor"
        case passwordAuthenticator = "/factor/v1/PasswordAuthenticator"
        case otpGenerator = "/factor/v1/OTPGenerator"
        case otpVerifier = "/factor/v1/OTPVerifier"
        case registerChallengeGenerator = "/factor/v1/FIDORegChallengeGenerator"
        case registerChallengeVerifier = "/factor/v1/FIDORegChallengeVerifier"
        case authChallengeGenerator = "/factor/v1/FIDOAuthChallengeGenerator"
        case authChallengeVerifier = "/factor/v1/FIDOAuthChallengeVerifier"
        case txnSignChallengeGenerator = "/factor/v1/FIDOTxnSignChallengeGenerator"
        case txnSignChallengeVerifier = "/factor/v1/FIDOTxnSignChallengeVerifier"

        public var method: String {
            switch self {
            case .brandingSettings, .authHubPublicKey: "GET"
            default: "POST"
            }
        }
    }

    public enum BuildError: Error, Sendable, Equatable, CustomStringConvertible {
        case invalidURL(String)
        case bodyNotJSON(String)

        public var description: String {
            switch self {
            case .invalidURL(let url): "not a usable URL: \(url)"
            case .bodyNotJSON(let detail): "the payload cannot be sent as JSON: \(detail)"
            }
        }
    }

    public let path: Path
    /// `https://host/tenant` (serverHost + tenant form) or a proxy URL that already names the tenant.
    public let baseURL: String
    public private(set) var headers: [String: Any] = [:]
    public private(set) var payload: [String: Any] = [:]

    public init(serverHost: String, tenant: String, path: Path) {
        let host = serverHost.hasPrefix("http") ? serverHost : "https://" + serverHost
        baseURL = host.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + "/" + tenant
        self.path = path
    }

    public init(serverUrl: String, path: Path) {
        baseURL = serverUrl.hasSuffix("/") ? String(serverUrl.dropLast()) : serverUrl
        self.path = path
    }

    @discardableResult
    public func setRequestPayloadParameters(_ parameters: [String: Any]) -> Self {
        payload = parameters
        return self
    }

    @discardableResult
    public func setRequestHeaders(_ headers: [String: Any]) -> Self {
        self.headers = headers
        return self
    }

    public var url: URL? { URL(string: baseURL + path.rawValue) }

    /// The request: JSON body for POSTs, `Accept: application/json`, the headers as strings.
    public func build() throws -> URLRequest {
        guard let url, url.scheme == "https" || url.scheme == "http" else {
            throw BuildError.invalidURL(baseURL + path.rawValue)
        }
        var request = URLRequest(url: url)
        request.httpMethod = path.method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue("\(value)", forHTTPHeaderField: name) }
        if path.method == "POST" {
            guard JSONSerialization.isValidJSONObject(payload) else {
                throw BuildError.bodyNotJSON("\(payload.keys.sorted())")
            }
            request.httpBody = try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }
}
