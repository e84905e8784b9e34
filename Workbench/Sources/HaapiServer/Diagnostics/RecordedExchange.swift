import Foundation
import HTTPTypes
import HaapiRules
import NIOCore

/// One request and its answer as the inspector and the log line show them. The bodies are kept up to
/// ``bodyLimit`` bytes; secrets in them and in the headers are masked when shown, never stored elsewhere
/// (memory only, the last ``RequestJournal/capacity`` requests).
struct RecordedExchange: Sendable {
    /// Bodies are cut to this size: enough for any HAAPI representation or token response the dev server
    /// sends (1–3 KiB), and what bounds the journal's memory.
    static let bodyLimit = 8 * 1024
    /// The bytes of header names and values kept per message (a request of the SDK sends about 1.5 KiB, a
    /// DPoP proof included): the rest is left out and counted in a last field.
    static let headerBytesLimit = 3 * 1024
    /// Bytes kept of the path, of the query and of a refusal's detail.
    static let textLimit = 1024
    /// What one entry holds at most: two bodies, two messages' headers, the path, query and detail, and the
    /// short strings beside them (client id, key thumbprint, links, content type: under 512 bytes).
    static let maxEntryBytes = 2 * bodyLimit + 2 * headerBytesLimit + 3 * textLimit + 512

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

    /// The fields of a message, within ``headerBytesLimit``: values cut to what is left, and one last field
    /// saying how many were left out.
    static func fields(_ fields: HTTPFields) -> [(name: String, value: String)] {
        var kept: [(name: String, value: String)] = []
        var left = headerBytesLimit
        var omitted = 0
        for field in fields {
            let name = field.name.rawName
            guard left > name.utf8.count else {
                omitted += 1
                continue
            }
            left -= name.utf8.count
            let value = String(decoding: field.value.utf8.prefix(left), as: UTF8.self)
            left -= value.utf8.count
            kept.append((name, value.utf8.count < field.value.utf8.count ? value + "…" : value))
        }
        if omitted > 0 { kept.append(("…", "\(omitted) more field\(omitted == 1 ? "" : "s") not kept")) }
        return kept
    }

    /// `text` cut to ``textLimit`` bytes.
    static func cut(_ text: String?) -> String? {
        guard let text, text.utf8.count > textLimit else { return text }
        return String(decoding: text.utf8.prefix(textLimit), as: UTF8.self) + "…"
    }

    static func cut(_ buffer: ByteBuffer?) -> ByteBuffer? {
        guard let buffer else { return nil }
        // Always a copy of (at most) the first bytes: a received body can be a view into a larger read
        // buffer, which the journal would otherwise keep alive.
        return ByteBuffer(bytes: buffer.readableBytesView.prefix(bodyLimit))
    }
}
