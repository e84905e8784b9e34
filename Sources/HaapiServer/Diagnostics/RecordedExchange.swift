import Foundation
import HTTPTypes
import NIOCore

/// One request and its answer as the inspector and the log line show them. The bodies are kept up to
/// ``bodyLimit`` bytes; secrets in them and in the headers are masked when shown, never stored elsewhere
/// (memory only, the last ``RequestJournal/capacity`` requests).
struct RecordedExchange: Sendable {
    /// Bodies are cut to this size: enough for any HAAPI representation or token response the dev server
    /// sends (1–3 KiB), and what bounds the journal's memory.
    static let bodyLimit = 8 * 1024
    /// Header fields kept per message, and bytes per value.
    static let headerLimit = 40
    static let headerValueLimit = 2 * 1024

    let sequence: Int
    let time: Date
    let duration: TimeInterval
    let method: String
    let path: String
    let query: String?
    let requestHeaders: [(name: String, value: String)]
    let requestBody: ByteBuffer?
    let status: Int
    let responseHeaders: [(name: String, value: String)]
    let responseBody: ByteBuffer?
    let responseContentType: String?
    let clientID: String?
    let refusal: Refusal?
    let proofKey: String?
    let issuedLink: String?
    let consumedLink: String?
    /// Fields of the request's form the step declared secret (`password` type), masked whatever their names.
    var secretFields: Set<String> = []
    /// The flow the request belongs to (set by the journal), nil for requests outside a HAAPI flow.
    var flow: Int?

    var isRefused: Bool { status >= 400 }

    /// The rule a refused request broke: the one recorded, or by its status when nothing recorded one
    /// (a path the router does not know, an error thrown past every check).
    var rule: Rule? {
        guard isRefused else { return nil }
        if let refusal { return refusal.rule }
        if status == 404 || status == 405 { return .notFound }
        return status >= 500 ? .serverError : .refused
    }

    static func fields(_ fields: HTTPFields) -> [(name: String, value: String)] {
        fields.prefix(headerLimit).map { field in
            (field.name.rawName, String(field.value.prefix(headerValueLimit)))
        }
    }

    static func cut(_ buffer: ByteBuffer?) -> ByteBuffer? {
        guard let buffer else { return nil }
        // Always a copy of (at most) the first bytes: a received body can be a view into a larger read
        // buffer, which the journal would otherwise keep alive.
        return ByteBuffer(bytes: buffer.readableBytesView.prefix(bodyLimit))
    }
}
