import Foundation
@_spi(Tooling) import HaapiModel
import HaapiRules

/// The line the server writes for a request: for a refused one the time, method and path, status, client,
/// rule, what was expected and what came, and the fix; for an accepted one (verbose) the first five.
enum RequestLogLine {
    static func line(_ exchange: RecordedExchange, format: RequestLogOptions.Format) -> String {
        let time = timestamp(exchange.time)
        let entry = exchange.rule.map(\.entry)
        switch format {
        case .text:
            var parts = [time, exchange.method, exchange.path, String(exchange.status)]
            parts.append("client=\(exchange.clientID.map(clean) ?? "-")")
            if let rule = exchange.rule, let entry {
                parts.append("[\(rule.id)]")
                parts.append(clean(exchange.refusal?.detail ?? entry.title) + ";")
                parts.append("fix: \(entry.fix)")
                return parts.joined(separator: " ")
            }
            parts.append("(\(milliseconds(exchange.duration)) ms)")
            return parts.joined(separator: " ")
        case .json:
            var object: JSONObject = [
                "time": .string(time), "method": .string(exchange.method), "path": .string(exchange.path),
                "status": .number(JSONNumber(exchange.status)),
                "client": exchange.clientID.map(JSONValue.string) ?? .null,
                "ms": .number(JSONNumber(milliseconds(exchange.duration))),
            ]
            if let rule = exchange.rule, let entry {
                object["rule"] = .string(rule.id)
                object["title"] = .string(entry.title)
                object["detail"] = .string(exchange.refusal?.detail ?? entry.title)
                object["fix"] = .string(entry.fix)
                object["reference"] = .string(entry.reference)
            }
            return JSONValue.object(object).serialized()
        }
    }

    /// One line of text: control characters (a newline in a client-sent value) become spaces, so no value
    /// can forge a second line.
    static func clean(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    static func timestamp(_ date: Date) -> String {
        var format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        format.timeZone = TimeZone(identifier: "UTC") ?? .current
        return date.formatted(format)
    }

    static func milliseconds(_ interval: TimeInterval) -> Int { Int((interval * 1000).rounded()) }
}
