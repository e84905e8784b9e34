import Foundation

/// The passkey relying party the server is: the web app's pages, the HAAPI passkeys authenticator and the
/// Authentication Hub all use it.
public struct PasskeySettings: Codable, Sendable, Equatable {
    /// The RP ID (WebAuthn §5.1.5): a registrable domain suffix of every origin below. Absent: the host of
    /// the server's public URL. Browsers refuse IP addresses, so a server reached as `127.0.0.1` needs
    /// `localhost` or a real name here (or a `--public-url` that names one).
    public var rpId: String?
    /// The origins whose ceremonies are accepted (`scheme://host[:port]`). Absent or empty: the server's
    /// public URL only. Add another origin when the same passkeys are used from another site of the RP ID.
    public var origins: [String]
    /// `platform` or `cross-platform` to ask the browser for one kind of authenticator; absent lets the
    /// person choose (a phone, a security key or the device itself).
    public var authenticatorAttachment: String?

    public init(rpId: String? = nil, origins: [String] = [], authenticatorAttachment: String? = nil) {
        self.rpId = rpId
        self.origins = origins
        self.authenticatorAttachment = authenticatorAttachment
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        rpId = try c.decodeIfPresent(String.self, forKey: .rpId)
        origins = try c.decodeIfPresent([String].self, forKey: .origins) ?? []
        authenticatorAttachment = try c.decodeIfPresent(String.self, forKey: .authenticatorAttachment)
    }

    func validate() throws {
        if let rpId {
            // A host name in lower case, no scheme, port or path (WebAuthn compares it byte for byte).
            let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
            guard !rpId.isEmpty, rpId.allSatisfy(allowed.contains), !rpId.hasPrefix("."), !rpId.hasSuffix(".")
            else {
                throw ConfigurationError.invalid(
                    "passkeys.rpId \"\(rpId)\" must be a lower-case host name such as localhost or example.com")
            }
        }
        for origin in origins {
            guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme),
                url.host != nil, url.path.isEmpty || url.path == "/", url.query == nil
            else {
                throw ConfigurationError.invalid(
                    "passkeys.origins: \"\(origin)\" must be an origin such as https://login.example.com")
            }
            if let rpId, let host = url.host, host != rpId, !host.hasSuffix("." + rpId) {
                throw ConfigurationError.invalid(
                    "passkeys.origins: \"\(origin)\" is not on the RP ID \"\(rpId)\" or one of its subdomains")
            }
        }
        if let attachment = authenticatorAttachment, !["platform", "cross-platform"].contains(attachment) {
            throw ConfigurationError.invalid(
                "passkeys.authenticatorAttachment must be platform or cross-platform (or absent), not \"\(attachment)\""
            )
        }
    }
}

/// The native apps that share this server's credentials and links: what the server publishes in
/// `/.well-known/apple-app-site-association` and `/.well-known/assetlinks.json`.
public struct AssociatedApps: Codable, Sendable, Equatable {
    /// iOS apps as `<Team ID>.<Bundle Identifier>`, e.g. `1ABC23DEF4.com.example.shiny`.
    public var iosAppIds: [String]
    public var android: [AndroidApp]

    public struct AndroidApp: Codable, Sendable, Equatable {
        public var packageName: String
        /// SHA-256 fingerprints of the app's signing certificates, as `AB:CD:…` (32 bytes).
        public var sha256CertFingerprints: [String]

        public init(packageName: String, sha256CertFingerprints: [String]) {
            self.packageName = packageName
            self.sha256CertFingerprints = sha256CertFingerprints
        }
    }

    public init(iosAppIds: [String] = [], android: [AndroidApp] = []) {
        self.iosAppIds = iosAppIds
        self.android = android
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        iosAppIds = try c.decodeIfPresent([String].self, forKey: .iosAppIds) ?? []
        android = try c.decodeIfPresent([AndroidApp].self, forKey: .android) ?? []
    }

    func validate() throws {
        let bundleCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
        for id in iosAppIds {
            guard AppleAppID.isValid(id) else {
                throw ConfigurationError.invalid(
                    "associatedApps.iosAppIds: \"\(id)\" must be <Team ID>.<Bundle Identifier>, e.g. 1ABC23DEF4.com.example.app"
                )
            }
        }
        let hex = Set("0123456789ABCDEF")
        for app in android {
            guard !app.packageName.isEmpty, app.packageName.allSatisfy(bundleCharacters.contains) else {
                throw ConfigurationError.invalid(
                    "associatedApps.android: \"\(app.packageName)\" is not a package name such as com.example.app")
            }
            for fingerprint in app.sha256CertFingerprints {
                let bytes = fingerprint.split(separator: ":", omittingEmptySubsequences: false)
                guard !app.sha256CertFingerprints.isEmpty, bytes.count == 32,
                    bytes.allSatisfy({ $0.count == 2 && $0.uppercased().allSatisfy(hex.contains) })
                else {
                    throw ConfigurationError.invalid(
                        "associatedApps.android: the fingerprint \"\(fingerprint)\" of \(app.packageName) must be 32 hex bytes joined by colons"
                    )
                }
            }
            if app.sha256CertFingerprints.isEmpty {
                throw ConfigurationError.invalid(
                    "associatedApps.android: \(app.packageName) needs at least one sha256CertFingerprints entry")
            }
        }
    }
}
