import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiModel
import HaapiRules
import Hummingbird
import Logging
import NIOCore

extension HTTPField.Name {
    static let dpop = HTTPField.Name("DPoP")!
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
    static let sessionID = HTTPField.Name("Session-Id")!
    static let setSessionID = HTTPField.Name("Set-Session-Id")!
}

/// Building responses and reading requests, the same way in every route.
enum HTTP {
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        body(value, fields: Fields.json, status: status, headers: headers)
    }

    static func body(
        _ text: String, contentType: String, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) -> Response {
        body(
            ByteBuffer(string: text), fields: [.contentType: contentType, .cacheControl: "no-store"], status: status,
            headers: headers)
    }

    /// A JSON body written straight into the response's buffer, with no `String` in between.
    private static func body(
        _ value: JSONValue, fields: HTTPFields, status: HTTPResponse.Status, headers: HTTPFields
    ) -> Response {
        body(ByteBuffer(bytes: value.serializedBytes()), fields: fields, status: status, headers: headers)
    }

    /// `fields` (the content type and `Cache-Control: no-store`) over the caller's `headers`.
    private static func body(
        _ buffer: ByteBuffer, fields: HTTPFields, status: HTTPResponse.Status, headers: HTTPFields
    ) -> Response {
        if let trace = RequestTrace.current {
            trace.update {
                $0.responseBody = buffer
                $0.responseContentType = fields[.contentType]
            }
        }
        var combined = fields
        if !headers.isEmpty {
            // Rare (a nonce, a challenge): the caller's fields, with ours set over any of the same name.
            combined = headers
            for field in fields { combined[field.name] = field.value }
        }
        return Response(status: status, headers: combined, body: .init(byteBuffer: buffer))
    }

    /// The fields every JSON answer carries, built (and their values checked) once rather than set by name on
    /// each response, which searches the fields and checks each value's characters again.
    private enum Fields {
        static let json: HTTPFields = [.contentType: "application/json", .cacheControl: "no-store"]
        static let representation: HTTPFields = [
            .contentType: HaapiMediaType.representation, .cacheControl: "no-store",
        ]
        static let problem: HTTPFields = [.contentType: HaapiMediaType.problem, .cacheControl: "no-store"]
    }

    /// An OAuth error response (RFC 6749 §5.2) for a breach of `rule`: its id ends the `error_description` in
    /// brackets, and the request's trace records it with `detail` (what was expected, what came) for the
    /// server's log line.
    static func oauthError(
        _ error: String, _ description: String, rule: Rule, detail: String? = nil,
        status: HTTPResponse.Status = .badRequest, headers: HTTPFields = [:]
    ) -> Response {
        RequestTrace.refuse(rule, detail)
        return json(
            ["error": .string(error), "error_description": .string(described(description, rule))], status: status,
            headers: headers)
    }

    /// `description` with the rule's id in brackets at its end.
    static func described(_ description: String, _ rule: Rule) -> String {
        "\(description) [\(rule.id)]"
    }

    static func representation(
        _ value: JSONValue, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) -> Response {
        body(value, fields: Fields.representation, status: status, headers: headers)
    }

    /// A HAAPI problem for a breach of `rule`. The body keeps the problem's shape (its title is shown to users);
    /// the rule and `detail` go to the request's trace.
    static func problem(
        _ value: JSONValue, rule: Rule, detail: String? = nil, status: HTTPResponse.Status, headers: HTTPFields = [:]
    ) -> Response {
        RequestTrace.refuse(rule, detail)
        return body(value, fields: Fields.problem, status: status, headers: headers)
    }

    static func redirect(to location: String) -> Response {
        Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// Reads a URL-encoded form body. Repeated parameters are refused (RFC 6749 §3.1).
    static func form(_ request: inout Request, limit: Int) async throws(RequestFailure) -> [String: String] {
        guard let contentType = HTTP.header(request, .contentType),
            HaapiMediaType.essence(of: contentType) == "application/x-www-form-urlencoded"
        else { throw .unsupportedMediaType }
        let body = try await bodyBuffer(&request, limit: limit)
        RequestTrace.current?.update { $0.requestBody = body }
        // Parsed from the received bytes; only a refused body is looked at again, to say why.
        let decoded = body.withUnsafeReadableBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { FormURLEncoding.decode(utf8: $0) }
        }
        guard let pairs = decoded else {
            guard String(strictUTF8: body.readableBytesView) != nil else {
                throw .malformed("the body is not UTF-8")
            }
            throw .malformed("the form body is not valid URL encoding")
        }
        var values: [String: String] = [:]
        values.reserveCapacity(pairs.count)
        for (name, value) in pairs {
            guard values[name] == nil else { throw .malformed("parameter \(name) is repeated") }
            values[name] = value
        }
        return values
    }

    static func bodyText(_ request: inout Request, limit: Int) async throws(RequestFailure) -> String {
        let buffer = try await bodyBuffer(&request, limit: limit)
        RequestTrace.current?.update { $0.requestBody = buffer }
        guard let text = String(bytes: buffer.readableBytesView, encoding: .utf8) else {
            throw .malformed("the body is not UTF-8")
        }
        return text
    }

    private static func bodyBuffer(_ request: inout Request, limit: Int) async throws(RequestFailure) -> ByteBuffer {
        do {
            return try await request.collectBody(upTo: limit)
        } catch {
            throw .tooLarge
        }
    }

    /// The names that occur more than once in the query (RFC 6749 §3.1: a parameter must not be repeated).
    static func repeatedQueryNames(_ request: Request) -> [String] {
        guard let query = request.uri.query, let pairs = FormURLEncoding.decode(query) else { return [] }
        var seen: Set<String> = []
        var repeated: [String] = []
        for (name, _) in pairs where !seen.insert(name).inserted && !repeated.contains(name) { repeated.append(name) }
        return repeated
    }

    /// Query parameters, decoded; repeated names keep the first value.
    static func query(_ request: Request) -> [String: String] {
        guard let query = request.uri.query, let pairs = FormURLEncoding.decode(query) else { return [:] }
        var values: [String: String] = [:]
        for (name, value) in pairs where values[name] == nil { values[name] = value }
        return values
    }

    /// `value` without the optional white space (spaces and tabs, RFC 9110 §5.6.3) around it; byte by
    /// byte, as it runs on every request, and without a copy when there is nothing to trim.
    static func trimmingOWS(_ value: String) -> String {
        let trimmed = trimmingOWS(value[...])
        return trimmed.utf8.count == value.utf8.count ? value : String(trimmed)
    }

    static func trimmingOWS(_ value: Substring) -> Substring {
        let bytes = value.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        func isOWS(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        while start < end, isOWS(bytes[start]) { start = bytes.index(after: start) }
        while start < end, isOWS(bytes[bytes.index(before: end)]) { end = bytes.index(before: end) }
        return value[start..<end]
    }

    /// Whether an `Authorization` value uses `scheme` (given in lower case), compared without case and
    /// without copying the header: `Basic …`, `DPoP …`.
    static func hasAuthScheme(_ value: String, _ scheme: String) -> Bool {
        var header = value.utf8.makeIterator()
        for expected in scheme.utf8 {
            guard let byte = header.next(), byte | 0x20 == expected else { return false }
        }
        return header.next() == UInt8(ascii: " ")
    }

    /// The value of the `name` fields of `request`, as `request.headers[name]` gives it (several joined with
    /// commas), found in one pass: the subscript finds the field twice and joins even a single value into a
    /// new string.
    static func header(_ request: Request, _ name: HTTPField.Name) -> String? {
        var found: String?
        for field in request.headers where field.name == name {
            guard found == nil else { return request.headers[name] }
            found = field.value
        }
        return found
    }

    static func headerValues(_ request: Request, _ name: HTTPField.Name) -> [String] {
        request.headers[values: name]
    }
}

enum RequestFailure: Error {
    case unsupportedMediaType
    case tooLarge
    case malformed(String)

    var response: Response {
        switch self {
        case .unsupportedMediaType:
            HTTP.oauthError(
                "invalid_request", "expected application/x-www-form-urlencoded", rule: .invalidRequest,
                status: .unsupportedMediaType)
        case .tooLarge:
            HTTP.oauthError(
                "invalid_request", "request body too large", rule: .invalidRequest, status: .contentTooLarge)
        case .malformed(let detail):
            HTTP.oauthError("invalid_request", detail, rule: .invalidRequest)
        }
    }
}

/// A request a check refused, with the response that says why. The shared checks (`readForm`,
/// `authenticateClient`, `tokenRequestProof`, `haapiCaller`, …) throw it; a handler lets it propagate, and
/// Hummingbird's router sends its response (`HTTPResponseError`), so no handler writes the refusal itself.
struct Rejection: Error, HTTPResponseError {
    let response: Response

    init(_ response: Response) {
        self.response = response
    }

    var status: HTTPResponse.Status { response.status }

    func response(from request: Request, context: some RequestContext) throws -> Response { response }
}

extension HTTPField.Name {
    static let xFrameOptionsHeader = HTTPField.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    /// Set by browsers, never by a page (Fetch Metadata): `same-origin`, `same-site`, `cross-site`, `none`.
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}

extension Rejection {
    /// Runs a database call for a handler that refuses with ``Rejection``: a failure of the database is
    /// logged and answered 500 `server_error`, never taken for "not found" (which would answer a client
    /// as if its code or token did not exist).
    static func unlessStoreFails<T>(_ operation: () async throws -> T) async throws(Rejection) -> T {
        do {
            return try await operation()
        } catch {
            Logger(label: "haapi.devserver").error("database call failed: \(error)")
            throw Rejection(
                HTTP.oauthError(
                    "server_error", "the server's database failed", rule: .storeFailure, status: .internalServerError))
        }
    }
}
