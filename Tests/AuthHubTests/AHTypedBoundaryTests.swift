@_spi(Tooling) import AuthHub
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Testing

/// The seed's `[String: Any]` shapes end at the API boundary: what goes in is checked there, what comes back
/// is read by our parser.
@Suite("AuthHub typed boundary")
struct AHTypedBoundaryTests {
    /// Answers every request with `body` and records what was sent.
    final class Canned: HTTPTransport, Sendable {
        let body: String
        let status: Int
        private let requests = LockedValue<[HTTPRequest]>([])
        var sent: [HTTPRequest] { requests.get() }

        init(_ body: String, status: Int = 200) {
            self.body = body
            self.status = status
        }

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            requests.withLock { $0.append(request) }
            return HTTPResponse(
                statusCode: status, headers: ["content-type": "application/json"], body: Data(body.utf8),
                url: request.url)
        }
    }

    static let address = "https://hub.example.com/default"

    @Test("initAuth refuses a parameter without a JSON form, names it, and sends nothing")
    func initAuthRefusesNonJSON() async throws {
        let transport = Canned(#"{"flowState":"f1","nextaction":"AUTH_REQUIRED"}"#)
        let core = AHCore(request: AuthHubBasicRequest(transport: transport))
        let parameters: [String: Any] = ["subject": "alice", "when": Date()]
        await #expect(throws: AuthHubEndpoint.BuildError.bodyNotJSON(#"["when"]"#)) {
            _ = try await core.initAuth(
                serverUrl: Self.address, requestHeaders: [:], authRequestParams: parameters,
                fieldsTobeEncryptedList: nil)
        }
        #expect(throws: AuthHubEndpoint.BuildError.self) {
            try core.initAuth(
                serverUrl: Self.address, requestHeaders: [:], authRequestParams: parameters,
                fieldsTobeEncryptedList: nil
            ) { _ in Issue.record("the completion block must not run") }
        }
        #expect(transport.sent.isEmpty)
    }

    @Test("a flow refuses a body without a JSON form with invalidRequest, sends nothing and keeps its state")
    func flowRefusesNonJSON() async throws {
        let transport = Canned(#"{"flowState":"f1","nextaction":"AUTH_REQUIRED"}"#)
        let flow = AHFlow(
            address: AHServerAddress(serverUrl: Self.address), requestHeaders: ["Authorization": "Bearer t"],
            core: AHCore(request: AuthHubBasicRequest(transport: transport)))
        await #expect {
            _ = try await flow.start(authRequestParams: ["subject": Data()])
        } throws: { error in
            guard case .invalidRequest(let detail) = error as? AHFlowError else { return false }
            return detail.contains("subject")
        }
        #expect(transport.sent.isEmpty)
        let started = try await flow.start(authRequestParams: ["subject": "alice", "attempt": 1, "web": false])
        #expect(started.flowState == "f1" && transport.sent.count == 1)
        let sentBody = try JSONParser().parse(transport.sent[0].body ?? Data())
        #expect(sentBody == ["attempt": 1, "subject": "alice", "web": false])
        await #expect {
            _ = try await flow.send(.otpVerifier, ["otp": Date()])
        } throws: { error in
            guard case .invalidRequest = error as? AHFlowError else { return false }
            return true
        }
        #expect(transport.sent.count == 1)
        #expect(await flow.flowState == "f1")
    }

    @Test("answers are read by our parser: numeric error codes keep their digits, junk and hostile bodies are empty")
    func answers() async throws {
        let numeric = Canned(#"{"errorCode":1004003,"errorMessage":"wrong"}"#, status: 400)
        let core = AHCore(request: AuthHubBasicRequest(transport: numeric))
        let failed = try await core.getFieldsToBeEncryptedInAuthFlow(serverUrl: Self.address, requestHeaders: [:])
        #expect(failed.code == AHResult.Code.SERVER_ERROR && failed.serverError?.kind == .invalidCredentials)

        for body in ["not json", "[1,2]", String(repeating: "[", count: 5000), #"{"a":"#] {
            let result = try await AuthHubBasicRequest(transport: Canned(body)).sendRequest(
                endpoint: AuthHubEndpoint(serverUrl: Self.address, path: .brandingSettings))
            #expect(result.json.isEmpty && result.data.isEmpty && result.statusCode == 200)
        }
    }

    @Test("AHCoreResult.data reads as Foundation values and keeps only what has a JSON form when set")
    func resultData() {
        var result = AHCoreResult(code: 0, message: "OK", json: ["flowState": "f", "fields": ["password"]])
        #expect(result.data["fields"] as? [String] == ["password"] && result.flowState == "f")
        result.data["extra"] = true
        result.data["when"] = Date()
        #expect(result.json["extra"] == .bool(true) && result.json["when"] == nil)
        #expect(result.json["flowState"] == "f")
    }
}
