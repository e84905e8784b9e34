import Crypto
import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// A recorded exchange decoded for people: headers with secrets masked, the DPoP proof's header and claims
/// (signature elided), bodies pretty-printed with tokens and passwords masked, ID token claims, and a short
/// label for each direction. Plain text: the pages escape all of it.
struct ExchangeView {
    let exchange: RecordedExchange

    // MARK: Labels for the diagram and the lists

    /// `POST /oauth/token (authorization_code)`.
    var requestLabel: String {
        var label = "\(exchange.method) \(exchange.path)"
        if let grant = formPairs?.first(where: { $0.name == "grant_type" })?.value {
            label += " (\(grant.prefix(40)))"
        }
        return label
    }

    /// `200 authentication-step (password)`, `200 token response (DPoP)`, `400 dpop.htu-mismatch`.
    var responseLabel: String {
        if let rule = exchange.rule { return "\(exchange.status) \(rule.id)" }
        guard let body = responseJSON else { return "\(exchange.status)\(isHTML ? " HTML page" : "")" }
        if let type = body["type"]?.stringValue {
            var label = "\(exchange.status) \(type)"
            if let kind = body["actions"]?[0]?["kind"]?.stringValue { label += " (\(kind))" }
            return label
        }
        if body["access_token"] != nil {
            return "\(exchange.status) token response (\(body["token_type"]?.stringValue ?? "?"))"
        }
        if body["cat"] != nil { return "\(exchange.status) client attestation token" }
        if body["challenge"] != nil { return "\(exchange.status) attestation challenge" }
        return "\(exchange.status) JSON"
    }

    /// The authenticator a request of the flow chose, read from its path (`/authn/authenticate/<id>…`).
    var authenticator: String? {
        let prefix = Paths.authenticate + "/"
        guard let start = exchange.path.range(of: prefix)?.upperBound else { return nil }
        let rest = exchange.path[start...]
        let id = rest.prefix { $0 != "/" }
        return id.isEmpty ? nil : String(id)
    }

    var isHTML: Bool { exchange.responseContentType?.hasPrefix("text/html") == true }

    // MARK: Decoded parts

    /// The request's header fields, masked: tokens by their first characters, cookies and session ids by
    /// their length; the DPoP proof shown by `proof` instead.
    var requestHeaders: [(String, String)] { Self.masked(exchange.requestHeaders) }
    var responseHeaders: [(String, String)] { Self.masked(exchange.responseHeaders) }

    static func masked(_ fields: [(name: String, value: String)]) -> [(String, String)] {
        fields.map { field in
            switch field.name.lowercased() {
            case "authorization":
                let scheme = field.value.prefix { $0 != " " }
                let credential = field.value.dropFirst(scheme.count).trimmingCharacters(in: .whitespaces)
                return (field.name, "\(scheme) \(MaskedText.token(credential))")
            case "dpop": return (field.name, "proof \(MaskedText.token(field.value)) (decoded below)")
            case "location": return (field.name, MaskedText.urlQuery(field.value))
            default: return (field.name, MaskedText.value(field.value, named: field.name))
            }
        }
    }

    /// The DPoP proof's JOSE header and claims, pretty-printed, the signature left out.
    var proof: (header: String, claims: String)? {
        guard let value = exchange.requestHeaders.first(where: { $0.name.lowercased() == "dpop" })?.value,
            let jws = try? CompactJWS(parsing: value.trimmingCharacters(in: .whitespaces))
        else { return nil }
        let claims = (try? jws.payloadObject()).map { JSONValue.object($0) } ?? .null
        return (JSONValue.object(jws.header).prettyPrinted(), shown(claims))
    }

    /// The query, form or JSON the request carried, masked.
    var requestBody: String? {
        var lines: [String] = []
        if let query = exchange.query, let pairs = FormURLEncoding.decode(query) {
            lines.append("query:")
            lines += pairs.map {
                "  \($0.0) = \(MaskedText.value($0.1, named: $0.0, declared: exchange.secretFields))"
            }
        }
        if let pairs = formPairs {
            lines.append("form:")
            lines += pairs.map {
                "  \($0.name) = \(MaskedText.value($0.value, named: $0.name, declared: exchange.secretFields))"
            }
        } else if let json = requestJSON {
            lines.append(shown(json))
        } else if let body = exchange.requestBody, body.readableBytes > 0 {
            lines.append("(\(body.readableBytes) bytes)")
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// The answer's body: JSON pretty-printed and masked; other bodies by size.
    var responseBody: String? {
        if let json = responseJSON { return shown(json) }
        guard let body = exchange.responseBody, body.readableBytes > 0 else { return nil }
        return "(\(body.readableBytes) bytes of \(exchange.responseContentType ?? "data"))"
    }

    /// The claims of an ID token in the answer, and the fingerprint of its access token.
    var tokens: [String] {
        guard let body = responseJSON else { return [] }
        var lines: [String] = []
        if let access = body["access_token"]?.stringValue {
            let digest = SHA256.hash(data: Data(access.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
            lines.append("access token: SHA-256 \(digest)…, \(access.count) chars")
        }
        if let idToken = body["id_token"]?.stringValue, let claims = try? CompactJWS(parsing: idToken).payloadObject() {
            lines.append("ID token claims:\n" + JSONValue.object(claims).prettyPrinted())
        }
        return lines
    }

    private var formPairs: [(name: String, value: String)]? {
        guard let body = exchange.requestBody,
            exchange.requestHeaders.contains(where: {
                $0.name.lowercased() == "content-type"
                    && $0.value.lowercased().hasPrefix("application/x-www-form-urlencoded")
            }),
            let text = String(bytes: body.readableBytesView, encoding: .utf8),
            let pairs = FormURLEncoding.decode(text)
        else { return nil }
        return pairs.map { (name: $0.0, value: $0.1) }
    }

    private var requestJSON: JSONValue? {
        guard let body = exchange.requestBody else { return nil }
        return try? JSONParser().parse(Data(body.readableBytesView))
    }

    private var responseJSON: JSONValue? {
        guard let body = exchange.responseBody, exchange.responseContentType?.contains("json") == true else {
            return nil
        }
        return try? JSONParser().parse(Data(body.readableBytesView))
    }

    // MARK: JSON for people

    /// Two-space indented JSON with its secrets masked (`MaskedText`): a HAAPI authorization response carries
    /// the code in its properties and its link.
    func shown(_ value: JSONValue) -> String {
        MaskedText.json(value, declared: exchange.secretFields).prettyPrinted()
    }
}
