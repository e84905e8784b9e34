@_spi(Tooling) import AuthHub
import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiServer
import Testing

/// The dev server with its Authentication Hub tenants, and a client-credentials token for them.
struct AuthHubTestServer {
    let server: DevServer
    let running: RunningDevServer
    let token: String

    var host: String { running.baseURL.absoluteString }
    var headers: [String: Any] { [AHConstants.HttpHeader.KeyAz: "Bearer " + token] }

    /// The embedded tenants ("default": password encrypted, then e-mail OTP or FIDO, proxy path "gateway";
    /// "plain": password only), plus "signed", which also wants the device signature encrypted.
    static func start() async throws -> AuthHubTestServer {
        var configuration = try ServerConfiguration.embeddedDefault
        configuration.authHub?.tenants.append(
            .init(name: "signed", fieldsToBeEncryptedInAuthFlow: ["password", "devicesignature"], secondFactors: []))
        let server = try DevServer(configuration: configuration, store: try ServerStore(path: nil))
        let running = try await server.start()
        let tokenURL = running.baseURL.appendingPathComponent("default/oauth2/v1/token")
        var request = HTTPRequest(
            method: "POST", url: tokenURL, body: Data("grant_type=client_credentials&scope=urn%3Aiam%3Amyscopes".utf8))
        request.setHeader("Content-Type", "application/x-www-form-urlencoded")
        request.setHeader(
            "Authorization", "Basic " + Data("authhub-app:authhub-secret-change-me".utf8).base64EncodedString())
        let response = try await defaultHTTPTransport().send(request)
        let body = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        return AuthHubTestServer(server: server, running: running, token: try #require(body["access_token"] as? String))
    }

    func flow(tenant: String = "default", core: AHCore = AHCore()) -> AHFlow {
        AHFlow(address: AHServerAddress(serverHost: host, tenant: tenant), requestHeaders: headers, core: core)
    }

    static func parameters(_ subject: String) -> [String: Any] {
        ["subject": subject, "channel": "mobile", "action": "authenticate", "ipAddress": "127.0.0.1"]
    }

    func latestCode(for user: String) async -> String? { await server.outbox.latestCode(for: user) }

    /// The claims of an ID token (its signature is the server's business; the tests read `sub` and `amr`).
    static func claims(_ idToken: String) -> [String: Any] {
        let parts = idToken.split(separator: ".")
        guard parts.count == 3,
            var payload = Optional(
                String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/"))
        else { return [:] }
        while payload.count % 4 != 0 { payload += "=" }
        return Data(base64Encoded: payload).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
            ?? [:]
    }
}

extension Error {
    /// The hub's `errorCode`, when this is an `AHFlowError.server`.
    var serverCode: String? {
        if case .server(let error)? = self as? AHFlowError { return error.code }
        return nil
    }
}
