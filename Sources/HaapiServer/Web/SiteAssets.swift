import Hummingbird
import NIOCore

/// The files the pages load from the server itself (CSP `'self'`), kept in the binary so `haapi serve`
/// needs no resource folder and no build step.
enum SiteAssets {
    static let stylePath = "/assets/site.css"
    static let passkeyScriptPath = "/assets/passkeys.js"

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
