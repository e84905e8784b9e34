import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel
import Hummingbird
import NIOCore
import Testing

#if HAAPI_ASYNC_HTTP_CLIENT
import HaapiAsyncHTTPClient
#endif

/// The dev server behind a reverse proxy on the same machine, as the README's HTTPS set-up runs it (issue 51
/// item 1): the local-only pages (admin, outbox, approve, inspector) refuse what comes through the proxy,
/// and a request naming the public host, while the OAuth endpoints answer through it.
@Suite("Local-only pages behind a proxy", .timeLimit(.minutes(2)))
struct LocalOnlyProxyTests {
    /// Forwards every request to `upstream` as a reverse proxy does: `Host` is the public name, and the
    /// client's address goes in `X-Forwarded-For`.
    static func proxy(to upstream: URL, publicHost: String) async throws -> LoopbackHTTPServer {
        #if HAAPI_ASYNC_HTTP_CLIENT
        let transport: any HTTPTransport = try AsyncHTTPClientTransport(timeout: 15)
        #else
        let transport: any HTTPTransport = URLSessionTransport()
        #endif
        return try await LoopbackHTTPServer { request in
            var target = upstream.absoluteString + request.uri.path
            if let query = request.uri.query, !query.isEmpty { target += "?" + query }
            guard let url = URL(string: target) else { return Response(status: .badRequest) }
            let hopByHop: Set<String> = ["host", "content-length", "connection", "transfer-encoding"]
            let headers =
                request.headers.filter { !hopByHop.contains($0.name.canonicalName) }.map {
                    (name: $0.name.rawName, value: $0.value)
                } + [("Host", publicHost), ("X-Forwarded-For", "203.0.113.9"), ("X-Forwarded-Proto", "https")]
            let body = try await request.body.collect(upTo: 1 << 20)
            let answer = try await transport.send(
                HaapiDriver.HTTPRequest(
                    method: request.method.rawValue, url: url, headers: headers,
                    body: body.readableBytes > 0 ? Data(body.readableBytesView) : nil))
            var fields = HTTPFields()
            for (name, value) in answer.headers where !hopByHop.contains(name.lowercased()) {
                if let field = HTTPFields.Element.Name(name) {
                    fields.append(HTTPFields.Element(name: field, value: value))
                }
            }
            return Response(
                status: .init(code: answer.statusCode), headers: fields,
                body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
        }
    }

    @Test(
        "through the proxy, or naming the public host, admin, outbox, approve and inspector are refused; directly they answer"
    )
    func proxied() async throws {
        let (process, output) = try CLIRunner.start([
            "serve", "--port", "0", "--public-url", "https://login.example.dev",
        ])
        defer { process.terminate() }
        let summary = try await CLIRunner.waitForLine(containing: "approve a pending sign-in", in: output)
        let local = try #require(
            summary.split(separator: " ").first { $0.hasPrefix("http://localhost:") }.map(String.init))
        let direct = try #require(URL(string: local))
        let proxy = try await Self.proxy(to: direct, publicHost: "login.example.dev")
        defer { proxy.stop() }
        let paths = [
            ("GET", "/admin/outbox"), ("GET", "/admin/approvals"), ("POST", "/admin/approve"), ("GET", "/inspector"),
        ]
        for (method, path) in paths {
            let proxied = try await RawHTTPLike.send(method, proxy.url.absoluteString + path)
            #expect(proxied.status == 403, "\(method) \(path) through the proxy: \(proxied.status)")
            #expect(proxied.text.contains("proxy") || proxied.text.contains("loopback"), "\(proxied.text)")
            // The public host named directly, with no proxy header: still not this machine's address.
            let named = try await RawHTTPLike.send(method, local + path, headers: [("Host", "login.example.dev")])
            #expect(named.status == 403, "\(method) \(path) with the public Host: \(named.status)")
            let forwarded = try await RawHTTPLike.send(
                method, local + path, headers: [("Forwarded", "for=203.0.113.9")])
            #expect(forwarded.status == 403, "\(method) \(path) with Forwarded: \(forwarded.status)")
        }
        // The OAuth endpoints answer through the proxy as before; the local pages answer this machine.
        let discovery = try await RawHTTPLike.send(
            "GET", proxy.url.absoluteString + "/.well-known/openid-configuration")
        #expect(discovery.status == 200 && discovery.text.contains("https://login.example.dev"))
        #expect(try await RawHTTPLike.send("GET", local + "/admin/outbox").status == 200)
        #expect(try await RawHTTPLike.send("GET", local + "/inspector").status == 200)
        #expect(
            try await RawHTTPLike.send("POST", local + "/admin/approve").status == 400,
            "no approval id: a 400, not a 403")
    }
}

/// Plain HTTP requests through the SDK's transport, with any header (Host included).
enum RawHTTPLike {
    struct Answer {
        let status: Int
        let text: String
    }

    static func send(_ method: String, _ url: String, headers: [(String, String)] = []) async throws -> Answer {
        #if HAAPI_ASYNC_HTTP_CLIENT
        let transport: any HTTPTransport = try AsyncHTTPClientTransport(timeout: 15)
        #else
        let transport: any HTTPTransport = URLSessionTransport()
        #endif
        guard let target = URL(string: url) else { throw URLError(.badURL) }
        let body: Data? = method == "POST" ? Data() : nil
        let answer = try await transport.send(
            HaapiDriver.HTTPRequest(
                method: method, url: target,
                headers: headers + (method == "POST" ? [("Content-Type", "application/x-www-form-urlencoded")] : []),
                body: body))
        return Answer(status: answer.statusCode, text: String(decoding: answer.body, as: UTF8.self))
    }
}
