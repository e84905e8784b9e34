import Foundation

/// The dev server's external-browser sign-in page as one browser holds it: its URL, the cookie it set and
/// the form's hidden fields, so a test can post the form as that browser would (or as another site would).
public struct SignInPage: Sendable {
    public let url: String
    public let cookie: String
    public let csrf: String
    public let response: RawResponse

    /// Loads the page, with the browser's cookie when it has one.
    public static func load(_ url: String, cookie: String? = nil) async throws -> SignInPage {
        let response = try await RawHTTP.send("GET", url, headers: cookie.map { [("Cookie", $0)] } ?? [])
        let setCookie = response.header("Set-Cookie")?.split(separator: ";").first.map(String.init)
        guard let csrf = hidden("csrf", in: response.text), let held = setCookie ?? cookie else {
            throw UnexpectedResponse("not a sign-in page: \(response.status) \(response.text.prefix(200))")
        }
        return SignInPage(url: url, cookie: held, csrf: csrf, response: response)
    }

    /// The value of a hidden field of the page's form.
    public static func hidden(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: "name=\"\(name)\" value=\"") else { return nil }
        let rest = html[start.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// Posts the form as the page would. `csrf` and `cookie` replace the page's own (`.some(nil)`: no
    /// cookie); `headers` are the browser's fetch metadata (`Sec-Fetch-Site`, `Origin`).
    public func post(
        userName: String, password: String, redirect: String = "app://haapi", csrf: String? = nil,
        cookie: String?? = nil, headers: [(String, String)] = [("Sec-Fetch-Site", "same-origin")]
    ) async throws -> RawResponse {
        let sentCookie = cookie ?? self.cookie
        return try await RawHTTP.form(
            url,
            [("csrf", csrf ?? self.csrf), ("userName", userName), ("password", password), ("redirect_uri", redirect)],
            headers: (sentCookie.map { [("Cookie", $0)] } ?? []) + headers)
    }
}
