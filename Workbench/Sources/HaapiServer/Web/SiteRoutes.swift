import Foundation
@_spi(Tooling) import HaapiModel
import Hummingbird
import NIOCore

/// The pages a person opens in a browser: the server's front page, the passkey web app (seed 004's RP, on
/// the endpoints of `WebAppRelyingPartyRoutes`), their style sheet and script, and the files that associate
/// native apps with the server's domain.
struct SiteRoutes: ServerService, RelyingPartyNaming {
    let address: ServerAddress
    let configuration: ServerConfiguration
    let clients: ClientRegistry
}

extension SiteRoutes {
    static let passkeyAppPath = "/passkeys"
    static let appleAssociationPath = "/.well-known/apple-app-site-association"
    static let androidAssociationPath = "/.well-known/assetlinks.json"

    func addRoutes(to router: Router<ServerRequestContext>) {
        router.get("/") { _, _ in self.frontPage() }
        router.get(RouterPath(stringLiteral: Self.passkeyAppPath)) { _, _ in self.passkeyApp() }
        router.get(RouterPath(stringLiteral: SiteAssets.stylePath)) { _, _ in
            SiteAssets.response(SiteAssets.style, contentType: "text/css; charset=utf-8")
        }
        router.get(RouterPath(stringLiteral: SiteAssets.iconPath)) { _, _ in
            SiteAssets.response(SiteAssets.icon, contentType: "image/svg+xml")
        }
        router.get(RouterPath(stringLiteral: SiteAssets.passkeyScriptPath)) { _, _ in
            SiteAssets.response(SiteAssets.passkeyScript, contentType: "text/javascript; charset=utf-8")
        }
        router.get(RouterPath(stringLiteral: Self.appleAssociationPath)) { _, _ in
            guard let document = self.appleAppSiteAssociation() else { return Self.notFound() }
            return HTTP.json(document)
        }
        router.get(RouterPath(stringLiteral: Self.androidAssociationPath)) { _, _ in
            guard let document = self.androidAssetLinks() else { return Self.notFound() }
            return HTTP.json(document)
        }
    }

    private func frontPage() -> Response {
        let content: HTML = """
            <h1>swift-haapi dev server</h1>
            <p>A development identity server: HAAPI logins, OAuth with DPoP, client attestation, passkeys. It is \
            meant for development, CI and demos on this machine, not for production.</p>
            <ul class="links">
            <li><a href="\(issuerPath + Self.passkeyAppPath)">Passkey web app</a>: create an account \
            with a passkey, sign in with it, add another.</li>
            <li><a href="\(issuerPath + Paths.discovery)">OpenID discovery document</a></li>
            <li><a href="\(issuerPath + Paths.jwks)">Signing keys (JWKS)</a></li>
            </ul>
            <p class="hint">Native apps sign in through HAAPI: point the SDK or <code>haapi login --server \
            \(issuer)</code> at this address.</p>
            """
        return HTMLPage(title: "swift-haapi dev server", content: content, basePath: issuerPath).response()
    }

    /// The passkey web app: static markup that its script drives. The RP ID and the accepted origins are
    /// attributes, so the script can tell a person who opened the page at another address where to go.
    private func passkeyApp() -> Response {
        let origins = relyingPartyOrigins
        let origin = origins.first ?? issuerOrigin
        let content: HTML = """
            <h1>Passkeys</h1>
            <p class="hint">Sign in without a password: your device keeps a key for this site and unlocks it \
            with your face, fingerprint, PIN or security key.</p>
            <noscript><p class="error" role="alert">Passkeys need JavaScript: turn it on for this page.</p></noscript>
            <p id="status" class="status" role="status" aria-live="polite"></p>
            <p id="wrong-origin" class="error" role="alert" hidden>Passkeys for this server work at \
            <a id="right-origin" href="\(origin + issuerPath + Self.passkeyAppPath)">\(origin)</a>, \
            not at this address.</p>
            <section id="signed-out">
            <h2>Create an account</h2>
            <form id="sign-up">
            <label for="user-name">User name</label>
            <input id="user-name" name="user_name" autocomplete="username webauthn" autocapitalize="none" spellcheck="false" required maxlength="64">
            <button type="submit">Create a passkey</button>
            </form>
            <h2>Sign in</h2>
            <form id="sign-in"><button type="submit">Sign in with a passkey</button></form>
            </section>
            <section id="signed-in" hidden>
            <h2>Signed in as <span id="account-name"></span></h2>
            <form id="add-passkey"><button type="submit">Add another passkey</button></form>
            <form id="sign-out"><button type="submit" class="secondary">Sign out</button></form>
            </section>
            """
        let attributes: HTML = " data-rp-id=\"\(relyingPartyID)\" data-origins=\"\(origins.joined(separator: " "))\""
        return HTMLPage(
            title: "Passkeys – swift-haapi dev server", content: content, script: SiteAssets.passkeyScriptPath,
            mainAttributes: attributes, basePath: issuerPath
        ).response()
    }

    /// Apple's associated-domains file: `webcredentials` for the configured apps, and `applinks` for the
    /// paths of https redirect URIs on this server's host (universal links), each client's paths for that
    /// client's own apps (`appIds`) only. Paths are published percent-encoded, as Apple compares them by
    /// default, so an encoded `%2A` stays a character (a bare `*` is refused at load: it would be a wildcard).
    func appleAppSiteAssociation() -> JSONValue? {
        guard let apps = configuration.associatedApps, !apps.iosAppIds.isEmpty else { return nil }
        var document: JSONObject = ["webcredentials": ["apps": .array(apps.iosAppIds.map(JSONValue.string))]]
        let host = URL(string: issuer)?.host
        let details: [JSONValue] = configuration.clients.compactMap { client in
            let paths = client.redirectURIs.compactMap { uri -> String? in
                guard let url = URLComponents(string: uri), url.scheme == "https", url.host == host else { return nil }
                return url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath
            }
            guard !paths.isEmpty, !client.appIds.isEmpty else { return nil }
            return [
                "appIDs": .array(client.appIds.map(JSONValue.string)),
                "components": .array(Array(Set(paths)).sorted().map { ["/": .string($0)] }),
            ]
        }
        if !details.isEmpty { document["applinks"] = ["details": .array(details)] }
        return .object(document)
    }

    /// Android's Digital Asset Links: the apps may open this server's links and use its credentials.
    func androidAssetLinks() -> JSONValue? {
        guard let apps = configuration.associatedApps?.android, !apps.isEmpty else { return nil }
        return .array(
            apps.map { app in
                [
                    "relation": [
                        "delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds",
                    ],
                    "target": [
                        "namespace": "android_app", "package_name": .string(app.packageName),
                        "sha256_cert_fingerprints": .array(
                            app.sha256CertFingerprints.map { .string($0.uppercased()) }),
                    ],
                ]
            })
    }

    private static func notFound() -> Response {
        HTTP.json(["error": "not_found", "error_description": "no associated apps are configured"], status: .notFound)
    }
}
