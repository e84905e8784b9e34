import Hummingbird
import NIOCore

/// The files the pages load from the server itself (CSP `'self'`), kept in the binary so `haapi serve`
/// needs no resource folder and no build step.
enum SiteAssets {
    static let stylePath = "/assets/site.css"
    static let passkeyScriptPath = "/assets/passkeys.js"
    static let iconPath = "/assets/icon.svg"

    /// The pages' icon (a key), so browsers do not ask for a `/favicon.ico` that does not exist.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="11" cy="16" r="7" fill="none" \
        stroke="#2557d6" stroke-width="4"/><path d="M18 16h12v6M25 16v4" fill="none" stroke="#2557d6" stroke-width="4"/></svg>
        """

    static func response(_ text: String, contentType: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: contentType, .cacheControl: "no-cache", .contentTypeOptions: "nosniff",
                .referrerPolicy: "no-referrer",
            ],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
