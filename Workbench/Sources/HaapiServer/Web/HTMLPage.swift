import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A page of the dev server, in one layout and with one set of protective headers, so no page (a sign-in
/// form, an error, the passkey app) can be framed, sniffed, cached or leak its URL in a `Referer`.
struct HTMLPage {
    /// The document's `<title>` (plain text).
    var title: String
    /// The `<main>` element's content.
    var content: HTML
    var status: HTTPResponse.Status = .ok
    /// Where the page's forms may send the browser besides this server (CSP `form-action` sources): a form
    /// post answered with a redirect to an app's URI is a form navigation to that URI.
    var formTargets: [String] = []
    /// A script of this server's (a path under `/assets`) the page runs; none by default.
    var script: String?
    /// Attributes of `<main>`, for a script to read the page's settings.
    var mainAttributes: HTML = ""
    /// More response fields, such as `Set-Cookie`.
    var headers: HTTPFields = [:]

    /// The server's base path (`issuerPath`), in front of the style sheet's and script's paths.
    var basePath = ""

    func response() -> Response {
        var fields = headers
        fields[.contentType] = "text/html; charset=utf-8"
        fields[.cacheControl] = "no-store"
        fields[.contentSecurityPolicy] = contentSecurityPolicy
        fields[.referrerPolicy] = "no-referrer"
        fields[.contentTypeOptions] = "nosniff"
        fields[.xFrameOptionsHeader] = "DENY"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(string: document)))
    }

    var contentSecurityPolicy: String {
        var directives = [
            "default-src 'none'", "style-src 'self'", "img-src 'self'",
            "form-action " + (["'self'"] + formTargets).joined(separator: " "),
            "frame-ancestors 'none'", "base-uri 'none'",
        ]
        if script != nil { directives += ["script-src 'self'", "connect-src 'self'"] }
        return directives.joined(separator: "; ")
    }

    var document: String {
        let scriptTag: HTML = script.map { "<script src=\"\(basePath + $0)\" defer></script>" } ?? ""
        let page: HTML = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="no-referrer">
            <title>\(title)</title>
            <link rel="icon" href="\(basePath + SiteAssets.iconPath)" type="image/svg+xml">
            <link rel="stylesheet" href="\(basePath + SiteAssets.stylePath)">\(scriptTag)
            </head><body><main\(mainAttributes)>
            \(content)
            </main></body></html>
            """
        return page.markup
    }

    /// A page that tells a person what went wrong and what to do next (a link, when there is one).
    static func message(
        title: String, heading: String, text: String, next: (label: String, href: String)?,
        status: HTTPResponse.Status, basePath: String
    ) -> HTMLPage {
        var content: HTML = "<h1>\(heading)</h1>\n<p role=\"alert\">\(text)</p>"
        if let next { content += "\n<p><a class=\"button\" href=\"\(next.href)\">\(next.label)</a></p>" }
        return HTMLPage(title: title, content: content, status: status, basePath: basePath)
    }
}

/// CSP sources (CSP 3 §2.3.1) for the URIs a form may redirect to: `scheme:` for an app's own scheme, the
/// origin for a web address. A URI whose parts would not make a well-formed source gives none, so nothing
/// a client registered can add other directives to the header.
enum FormTargetSource {
    static func source(for uri: String) -> String? {
        guard let colon = uri.firstIndex(of: ":") else { return nil }
        let scheme = uri[..<colon].lowercased()
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        guard scheme == "http" || scheme == "https" else { return scheme + ":" }
        guard let components = URLComponents(string: uri), let host = components.host?.lowercased(), !host.isEmpty,
            host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-".contains($0)) })
        else { return nil }
        return components.port.map { "\(scheme)://\(host):\($0)" } ?? "\(scheme)://\(host)"
    }
}
