import Foundation
@_spi(Tooling) import HaapiSdk
import Testing

#if HAAPI_ASYNC_HTTP_CLIENT
import HaapiAsyncHTTPClient
#endif

/// What each transport hands back from answers a plain HTTP client mishandles: a 401 that challenges for HTTP
/// authentication (FoundationNetworking waits for a credential there, and gives a completion handler no body),
/// a redirect (never followed), and a body past the limit.
@Suite("Transports: challenges, redirects and large bodies come back as the server sent them")
struct TransportAnswerTests {
    /// The transports an app can use here: the SDK's own, and on Linux the integrations' AsyncHTTPClient one.
    static var transports: [String] {
        #if HAAPI_ASYNC_HTTP_CLIENT
        ["URLSession", "AsyncHTTPClient"]
        #else
        ["URLSession"]
        #endif
    }

    static func transport(_ name: String, limit: Int = 4 * 1024 * 1024) throws -> any HTTPTransport {
        #if HAAPI_ASYNC_HTTP_CLIENT
        if name == "AsyncHTTPClient" { return try AsyncHTTPClientTransport(timeout: 5, maxResponseBytes: limit) }
        #endif
        return URLSessionTransport(timeout: 5, maxResponseBytes: limit)
    }

    static func answer(_ status: String, headers: [String], body: String) -> String {
        (["HTTP/1.1 \(status)", "Content-Type: application/json", "Content-Length: \(body.utf8.count)"] + headers
            + ["Connection: close", "", body]).joined(separator: "\r\n")
    }

    @Test(
        "a token endpoint's 401 invalid_client with a Basic challenge (with and without realm) keeps its body",
        arguments: transports,
        [#"WWW-Authenticate: Basic realm="oauth""#, "WWW-Authenticate: Basic", "www-authenticate: Basic realm=\"x\""])
    func basicChallenge(transport name: String, challenge: String) async throws {
        let body = #"{"error":"invalid_client","error_description":"wrong secret"}"#
        let server = try await RawSocketServer(
            reply: Self.answer("401 Unauthorized", headers: [challenge], body: body), thenClose: true)
        defer { Task { await server.stop() } }
        let response = try await Self.transport(name).send(
            HTTPRequest(
                method: "POST", url: server.url, headers: [("Authorization", "Basic YTpi")], body: Data("x=1".utf8)))
        #expect(response.statusCode == 401)
        #expect(String(decoding: response.body, as: UTF8.self) == body)
    }

    @Test("a redirect comes back as it is, with its Location", arguments: transports)
    func redirectNotFollowed(transport name: String) async throws {
        let server = try await RawSocketServer(
            reply: Self.answer("303 See Other", headers: ["Location: http://127.0.0.1:9/elsewhere"], body: "{}"),
            thenClose: true)
        defer { Task { await server.stop() } }
        let response = try await Self.transport(name).send(HTTPRequest(method: "GET", url: server.url))
        #expect(response.statusCode == 303)
        #expect(response.header("Location") == "http://127.0.0.1:9/elsewhere")
    }

    @Test("a body past the limit is responseTooLarge, not a truncated answer", arguments: transports)
    func tooLarge(transport name: String) async throws {
        let server = try await RawSocketServer(
            reply: Self.answer("200 OK", headers: [], body: String(repeating: "a", count: 64 * 1024)), thenClose: true)
        defer { Task { await server.stop() } }
        await #expect(throws: TransportError.responseTooLarge(limit: 1024)) {
            try await Self.transport(name, limit: 1024).send(HTTPRequest(method: "GET", url: server.url))
        }
    }
}
