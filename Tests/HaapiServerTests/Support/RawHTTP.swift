import Foundation
import HaapiDriver

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A plain HTTP exchange, built by hand: the tests must not depend on the SDK they later verify.
struct RawResponse: Sendable {
    let status: Int
    let headers: [String: String]
    let body: Data

    func header(_ name: String) -> String? { headers[name.lowercased()] }
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: JSONValue { (try? JSONParser().parse(body)) ?? .null }
    var contentType: String { header("content-type").map(HaapiMediaType.essence(of:)) ?? "" }
}

enum RawHTTP {
    /// Does not follow redirects: the browser flow's 302 to `app://…` is something to inspect.
    private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    private static let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)

    static func send(_ method: String, _ url: String, headers: [(String, String)] = [], body: Data? = nil) async throws -> RawResponse {
        guard let target = URL(string: url) else { throw URLError(.badURL) }
        var request = URLRequest(url: target)
        request.httpMethod = method
        for (name, value) in headers { request.addValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return RawResponse(status: http.statusCode, headers: fields, body: data)
    }

    static func form(_ url: String, _ values: [(String, String)], headers: [(String, String)] = []) async throws -> RawResponse {
        try await send("POST", url, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")] + headers,
                       body: Data(FormURLEncoding.encode(values.map { (name: $0.0, value: $0.1) }).utf8))
    }

    static func basic(_ id: String, _ secret: String) -> (String, String) {
        let encoded = Data("\(FormURLEncoding.encodeComponent(id)):\(FormURLEncoding.encodeComponent(secret))".utf8).base64EncodedString()
        return ("Authorization", "Basic " + encoded)
    }
}
