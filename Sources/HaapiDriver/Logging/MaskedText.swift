import Foundation
@_spi(Tooling) import HaapiModel

/// How swift-haapi shows a secret wherever it shows one: the dev server's log lines and inspector, the `haapi`
/// tool's output, the Authentication Hub request log. One set of rules, so that a value hidden in one place is
/// not shown in another.
///
/// - A token (an access, refresh or ID token, a code, a nonce) shows its first six characters and its length,
///   enough to tell two apart and not enough to use one: `eyJhbG…(812 chars)`.
/// - Any other secret (a password, a one-time code, a client secret, a proof's signature) shows its length only:
///   `(9 chars)`.
/// - What is a secret is known by the name it is sent under (`secretNames`, `tokenNames`, compared without
///   case), or because the step that asked for it declared it one (a field of type `password`).
public enum MaskedText {
    /// What a log line shows in place of a secret it names but does not measure (the SDK's `HaapiLogger`).
    public static let hidden = "*****"

    /// Names whose values are secrets wherever they appear: form parameters, JSON members, headers.
    public static let secretNames: Set<String> = [
        "password", "newpassword", "currentpassword", "client_secret", "code_verifier", "challenge_response",
        "client_assertion", "assertion", "otp", "usercode", "passcode", "pin", "authorization", "cookie",
        "set-cookie", "x-flow-state", "flowstate", "clientnonce", "servernonce", "credential", "signature",
        "iaauthdata", "encrypteddata",
    ]

    /// Names whose values are tokens or codes: shown by their first characters and length.
    public static let tokenNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "code", "cat", "subject_token", "device_code",
        "session_token", "registration_access_token", "_resume_nonce", "session_state", "session-id",
        "set-session-id", "dpop-nonce",
    ]

    /// Whether values sent under `name` are secrets (tokens included).
    public static func isSecret(name: String) -> Bool {
        let lowered = name.lowercased()
        return secretNames.contains(lowered) || tokenNames.contains(lowered)
    }

    /// `eyJhbG…(812 chars)`.
    public static func token(_ value: String) -> String {
        let count = value.count
        guard count > 12 else { return "…(\(count) chars)" }
        return "\(value.prefix(6))…(\(count) chars)"
    }

    /// `(8 chars)`: that something was sent, and how long it was.
    public static func secret(_ value: String) -> String { "(\(value.count) chars)" }

    /// A value sent under `name`, masked when the name says it is a secret or a token, or when it is one of
    /// `declared` (the fields a step declared of type `password`).
    public static func value(_ value: String, named name: String, declared: Set<String> = []) -> String {
        let lowered = name.lowercased()
        if secretNames.contains(lowered) || declared.contains(name) { return secret(value) }
        if tokenNames.contains(lowered) { return token(value) }
        return value
    }

    /// `value` with every member whose name marks a secret or a token masked, at any depth, and the codes and
    /// nonces in addresses (`href`, `redirect_uri`) masked in their query.
    public static func json(_ value: JSONValue, declared: Set<String> = []) -> JSONValue {
        switch value {
        case .object(let object):
            var masked = object
            for (key, member) in object {
                if case .string(let text) = member, isSecret(name: key) || declared.contains(key) {
                    masked[key] = .string(self.value(text, named: key, declared: declared))
                } else if case .string(let text) = member, text.contains("?") {
                    masked[key] = .string(urlQuery(text))
                } else {
                    masked[key] = json(member, declared: declared)
                }
            }
            return .object(masked)
        case .array(let elements): return .array(elements.map { json($0, declared: declared) })
        default: return value
        }
    }

    /// A URL whose query values are masked by their names (a redirect that carries `_resume_nonce` or `code`).
    public static func urlQuery(_ value: String) -> String {
        guard let query = value.firstIndex(of: "?"),
            let pairs = FormURLEncoding.decode(String(value[value.index(after: query)...]))
        else { return value }
        return String(value[...query]) + pairs.map { "\($0.0)=\(self.value($0.1, named: $0.0))" }.joined(separator: "&")
    }

    /// A URL a client sent, for a one-line log: without userinfo, query or fragment (where tokens and passwords
    /// hide), and cut to 200 characters.
    public static func url(_ value: String) -> String {
        // Rebuilt from the parts read, never by setting parts: URLComponents traps on some values set.
        guard let components = URLComponents(string: value), let scheme = components.scheme else {
            return "(not a URL, \(value.count) chars)"
        }
        var shown = scheme + ":"
        if let host = components.percentEncodedHost {
            let hadUser = components.percentEncodedUser != nil || components.percentEncodedPassword != nil
            shown += "//" + (hadUser ? "…@" : "") + host + (components.port.map { ":\($0)" } ?? "")
        }
        shown += components.percentEncodedPath
        if components.percentEncodedQuery != nil || components.percentEncodedFragment != nil { shown += "?…" }
        return shown.count > 200 ? String(shown.prefix(200)) + "…" : shown
    }
}
