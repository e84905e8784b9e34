import Crypto
import Foundation
import HTTPTypes
@_spi(Tooling) import HaapiDriver
import Hummingbird

/// Binds the sign-in page's form to the browser that loaded it (a CSRF defence, OWASP's "signed double
/// submit cookie"): the page sets a random `HttpOnly; SameSite=Strict` cookie and puts an HMAC of the
/// cookie and the page into a hidden field; a post must carry both, and the browser's own `Sec-Fetch-Site`
/// and `Origin` must not name another site. A page on another site can neither read the cookie nor make
/// the browser send it, and it cannot compute the field without the server's key.
struct BrowserFormGuard: Sendable {
    static let cookieName = "haapi_browser"
    static let fieldName = "csrf"

    /// Made at start; a restart invalidates pages that were open, which then say how to go on.
    private let key = SymmetricKey(size: .bits256)

    /// What a page puts into its form, and the cookie it sets when the browser has none yet.
    struct Binding {
        let field: String
        let setCookie: String?
    }

    /// The binding for a page load: the browser's cookie is kept (several tabs stay valid), else a new one.
    func bind(_ request: Request, page: String, cookiePath: String, secure: Bool) -> Binding {
        if let cookie = Self.cookie(in: request), Self.isWellFormed(cookie) {
            return Binding(field: field(page: page, cookie: cookie), setCookie: nil)
        }
        let cookie = SecureRandom.token(byteCount: 32)
        let attributes = "Path=\(cookiePath); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
        return Binding(
            field: field(page: page, cookie: cookie), setCookie: "\(Self.cookieName)=\(cookie); \(attributes)")
    }

    /// Why a post is refused, in words a person can act on; `nil` when it came from the page itself.
    func refusal(_ request: Request, form: [String: String], page: String, serverOrigin: String) -> String? {
        // Browsers send Sec-Fetch-Site (Chromium, Firefox, Safari 16.4+); a page cannot set it. Under
        // Referrer-Policy: no-referrer the page's own post says `Origin: null`, so Origin alone cannot tell
        // it from a data: URL, but Sec-Fetch-Site can (a data: page's post is cross-site).
        if let site = HTTP.header(request, .secFetchSite)?.lowercased() {
            guard site == "same-origin" else { return "it was sent from another site (\(site))" }
        } else if let origin = HTTP.header(request, .origin), origin != serverOrigin {
            return "it was sent from another origin (\(origin))"
        }
        guard let cookie = Self.cookie(in: request), Self.isWellFormed(cookie) else {
            return "this browser did not load the sign-in page (its cookie is missing)"
        }
        guard let sent = form[Self.fieldName], ConstantTime.equals(sent, field(page: page, cookie: cookie)) else {
            return "the form does not match this browser's sign-in page"
        }
        return nil
    }

    private func field(page: String, cookie: String) -> String {
        let message = Data("browser-form\u{0}\(page)\u{0}\(cookie)".utf8)
        return Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: message, using: key)))
    }

    /// 32 random bytes in base64url are 43 characters of its alphabet.
    private static func isWellFormed(_ cookie: String) -> Bool {
        cookie.utf8.count == 43
            && cookie.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x5F
            }
    }

    /// The value of this guard's cookie in the `Cookie` fields (RFC 6265 §5.4: `name=value` pairs by `; `).
    static func cookie(in request: Request) -> String? {
        cookie(inFields: HTTP.headerValues(request, .cookie))
    }

    static func cookie(inFields fields: [String]) -> String? {
        for header in fields {
            for pair in header.split(separator: ";") {
                let trimmed = HTTP.trimmingOWS(pair)
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == cookieName else { continue }
                return String(trimmed[trimmed.index(after: equals)...])
            }
        }
        return nil
    }
}
