@_spi(Tooling) import AuthHub
import Foundation
@_spi(Tooling) import HaapiDriver
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("AuthHub network module")
struct NetworkModuleTests {
    final class Capture: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var requests: [HTTPRequest] = []
        var sent: [HTTPRequest] { lock.withLock { requests } }

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            lock.withLock { requests.append(request) }
            let body = #"{"flowState":"secret-flow-state","nextaction":"AUTH_REQUIRED","access_token":"tok"}"#
            return HTTPResponse(
                statusCode: 200, headers: ["Content-Type": "application/json", "X-Flow-State": "fs"],
                body: Data(body.utf8), url: request.url)
        }
    }

    /// The seed's pattern: a subclass that adds a header per endpoint, then sends as the base class does.
    final class TaggingRequest: AuthHubBasicRequest, @unchecked Sendable {
        override func sendRequest(endpoint: AuthHubEndpoint) async throws -> AHRequestResult {
            var headers = endpoint.headers
            switch endpoint.path {
            case .brandingSettings: headers["X-Custom"] = "branding"
            case .authEndpoint: headers["X-Custom"] = "init-auth"
            default: break
            }
            endpoint.setRequestHeaders(headers)
            return try await super.sendRequest(endpoint: endpoint)
        }
    }

    @Test("endpoints build in both URL forms: tenant under the host, or a proxy URL; POSTs carry a JSON body")
    func build() throws {
        let tenant = try AuthHubEndpoint(serverHost: "ah.example.com", tenant: "default", path: .authEndpoint)
            .setRequestHeaders(["Authorization": "Bearer t", "Content-Type": "text/plain"])
            .setRequestPayloadParameters(["subject": "alice", "channel": "web"]).httpRequest()
        #expect(tenant.url.absoluteString == "https://ah.example.com/default/auth/v1/authenticate")
        #expect(tenant.method == "POST" && tenant.header("Authorization") == "Bearer t")
        #expect(tenant.header("Accept") == "application/json")
        // The body is JSON, whatever the caller's headers say.
        #expect(tenant.header("Content-Type") == "application/json")
        #expect(String(decoding: tenant.body ?? Data(), as: UTF8.self) == #"{"channel":"web","subject":"alice"}"#)
        let proxy = try AuthHubEndpoint(serverUrl: "https://proxy.example.com/ah/default/", path: .brandingSettings)
            .setRequestHeaders(["Accept": "application/hal+json"]).httpRequest()
        #expect(
            proxy.url.absoluteString == "https://proxy.example.com/ah/default/auth/v1/BrandingSettings"
                && proxy.method == "GET")
        #expect(proxy.body == nil && proxy.header("Accept") == "application/hal+json")
        #expect(throws: (any Error).self) {
            try AuthHubEndpoint(serverUrl: "ftp://nowhere", path: .authEndpoint).httpRequest()
        }
        #expect(throws: (any Error).self) {
            try AuthHubEndpoint(serverUrl: "https://x", path: .authEndpoint).setRequestPayloadParameters([
                "date": Date()
            ]).httpRequest()
        }
        #expect(AuthHubEndpoint.Path.allCases.count == 14)
    }

    @Test("build() gives the same request as Foundation's type")
    func buildURLRequest() throws {
        let endpoint = AuthHubEndpoint(serverHost: "ah.example.com", tenant: "default", path: .authEndpoint)
            .setRequestHeaders(["Authorization": "Bearer t"]).setRequestPayloadParameters(["subject": "alice"])
        let request = try endpoint.build()
        #expect(request.url?.absoluteString == "https://ah.example.com/default/auth/v1/authenticate")
        #expect(request.httpMethod == "POST" && request.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(String(decoding: request.httpBody ?? Data(), as: UTF8.self) == #"{"subject":"alice"}"#)
    }

    @Test("a subclass of AuthHubBasicRequest adds headers per endpoint; sendRequest returns the JSON")
    func subclass() async throws {
        let capture = Capture()
        let request = TaggingRequest(transport: capture)
        let result = try await request.sendRequest(
            endpoint: AuthHubEndpoint(serverHost: "ah.example.com", tenant: "t1", path: .authEndpoint))
        #expect(
            result.statusCode == 200 && result.data["nextaction"] as? String == "AUTH_REQUIRED"
                && result.headers["x-flow-state"] == "fs")
        #expect(capture.sent.last?.header("X-Custom") == "init-auth")
        _ = try await request.sendRequest(
            endpoint: AuthHubEndpoint(serverHost: "ah.example.com", tenant: "t1", path: .brandingSettings))
        #expect(capture.sent.last?.header("X-Custom") == "branding" && capture.sent.last?.method == "GET")
    }

    @Test(
        "the logger writes per logging type, to a 0600 file, with secrets masked",
        arguments: RequestLoggingType.allCases)
    func logger(type: RequestLoggingType) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ah-log-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: file) }
        let logger = AHRequestLogger(fileName: file.path)
        let request = AuthHubBasicRequest(transport: Capture())
        request.setRequestLogger(requestLogger: logger)
        let endpoint = {
            AuthHubEndpoint(serverHost: "ah.example.com", tenant: "t1", path: .passwordAuthenticator)
                .setRequestHeaders([
                    "Authorization": "Bearer secret-token", "X-Flow-State": "secret-flow-state", "X-Trace": "trace-1",
                ])
                .setRequestPayloadParameters(["password": "Password1", "actionType": "PASSWORD_AUTH"])
        }

        _ = try await request.sendRequest(endpoint: endpoint())  // logging is off until enabled
        #expect(!FileManager.default.fileExists(atPath: file.path))
        logger.enableLog(enable: true)
        logger.setLoggingType(type: type)
        _ = try await request.sendRequest(endpoint: endpoint())
        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        switch type {
        case .none:
            #expect(text.isEmpty)
        case .resp_time:
            #expect(text.contains("POST /factor/v1/PasswordAuthenticator") && text.contains(" ms"))
            #expect(!text.contains("headers="))
        case .data:
            #expect(
                text.contains("\"X-Trace\": \"trace-1\"") && text.contains("\"actionType\": \"PASSWORD_AUTH\"")
                    && text.contains("\"nextaction\""))
            #expect(text.contains("\"password\": \"*****\"") && text.contains("\"Authorization\": \"*****\""))
        }
        for secret in ["secret-token", "secret-flow-state", "Password1", "\"tok\""] {
            #expect(!text.contains(secret), "\(secret) leaked")
        }
        if !text.isEmpty {
            #expect((try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) == 0o600)
        }
    }
}
