import Foundation
import HaapiModel

/// How secrets appear in the server's log lines and the inspector: a token as its first six characters and
/// its length, never whole; a password, code verifier or client secret as its length alone.
enum LogMasking {
    /// `eyJhbG…(812 chars)`: enough to tell two tokens apart, not enough to use one.
    static func token(_ value: String) -> String {
        let count = value.count
        guard count > 12 else { return "…(\(count) chars)" }
        return "\(value.prefix(6))…(\(count) chars)"
    }

    /// `(8 chars)`: that something was sent, and how long it was.
    static func secret(_ value: String) -> String { "(\(value.count) chars)" }

    /// Names whose values are secrets wherever they appear: form parameters, JSON members, properties.
    static let secretNames: Set<String> = [
        "password", "client_secret", "code_verifier", "challenge_response", "client_assertion", "assertion", "otp",
        "userCode", "passcode", "pin",
    ]

    /// Names whose values are tokens or codes: shown by their first characters and length.
    static let tokenNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "code", "cat", "subject_token", "device_code",
        "session_token", "registration_access_token", "_resume_nonce",
    ]

    /// A value of the parameter or member `name`, masked when the name says it is a secret or a token, or when
    /// the step that asked for it declared it secret (`secretFields`).
    static func value(_ value: String, named name: String, secretFields: Set<String> = []) -> String {
        if secretNames.contains(name) || secretFields.contains(name) { return secret(value) }
        if tokenNames.contains(name) { return token(value) }
        return value
    }

    /// A URL whose query values are masked by their names (a redirect that carries `_resume_nonce` or `code`).
    static func urlQuery(_ value: String) -> String {
        guard let query = value.firstIndex(of: "?"),
            let pairs = FormURLEncoding.decode(String(value[value.index(after: query)...]))
        else { return value }
        return String(value[...query])
            + pairs.map { "\($0.0)=\(self.value($0.1, named: $0.0))" }.joined(separator: "&")
    }

    /// A URL a client sent, for a line: without userinfo, query or fragment (where tokens and passwords hide),
    /// and cut to 200 characters.
    static func url(_ value: String) -> String {
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
