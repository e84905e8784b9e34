import Foundation
@_spi(Tooling) import HaapiModel

/// Everything the dev server is told: clients, users, authenticators and lifetimes. One JSON file
/// (`haapi serve --config FILE`); `haapi serve --print-default-config` prints the embedded default.
public struct ServerConfiguration: Codable, Sendable, Equatable {
    public var clients: [ClientConfiguration]
    public var users: [UserConfiguration]
    public var authenticators: [AuthenticatorConfiguration]
    /// Logins as graphs of authenticators, which clients name (`ClientConfiguration.login`).
    public var logins: [LoginConfiguration]
    public var lifetimes: Lifetimes
    public var dpop: DPoPSettings
    public var security: SecuritySettings
    /// The Authentication Hub endpoints; absent, they answer nothing.
    public var authHub: AuthHubSettings?
    /// The passkey relying party: RP ID, accepted origins, authenticator attachment.
    public var passkeys: PasskeySettings
    /// Apps published in `/.well-known/apple-app-site-association` and `assetlinks.json`; absent, neither
    /// file is served.
    public var associatedApps: AssociatedApps?
    /// Apple App Attest for clients with the `appAttest` policy: the app ids, the root, the environment.
    public var appAttest: AppAttestSettings?

    public init(
        clients: [ClientConfiguration], users: [UserConfiguration], authenticators: [AuthenticatorConfiguration],
        logins: [LoginConfiguration] = [], lifetimes: Lifetimes = Lifetimes(), dpop: DPoPSettings = DPoPSettings(),
        security: SecuritySettings = SecuritySettings(),
        authHub: AuthHubSettings? = nil, passkeys: PasskeySettings = PasskeySettings(),
        associatedApps: AssociatedApps? = nil, appAttest: AppAttestSettings? = nil
    ) {
        self.appAttest = appAttest
        self.authHub = authHub
        self.passkeys = passkeys
        self.associatedApps = associatedApps
        self.clients = clients
        self.users = users
        self.authenticators = authenticators
        self.logins = logins
        self.lifetimes = lifetimes
        self.dpop = dpop
        self.security = security
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        clients = try container.decode([ClientConfiguration].self, forKey: .clients)
        users = try container.decodeIfPresent([UserConfiguration].self, forKey: .users) ?? []
        authenticators = try container.decode([AuthenticatorConfiguration].self, forKey: .authenticators)
        logins = try container.decodeIfPresent([LoginConfiguration].self, forKey: .logins) ?? []
        lifetimes = try container.decodeIfPresent(Lifetimes.self, forKey: .lifetimes) ?? Lifetimes()
        dpop = try container.decodeIfPresent(DPoPSettings.self, forKey: .dpop) ?? DPoPSettings()
        security = try container.decodeIfPresent(SecuritySettings.self, forKey: .security) ?? SecuritySettings()
        authHub = try container.decodeIfPresent(AuthHubSettings.self, forKey: .authHub)
        passkeys = try container.decodeIfPresent(PasskeySettings.self, forKey: .passkeys) ?? PasskeySettings()
        associatedApps = try container.decodeIfPresent(AssociatedApps.self, forKey: .associatedApps)
        appAttest = try container.decodeIfPresent(AppAttestSettings.self, forKey: .appAttest)
    }

    /// Lifetimes in seconds.
    public struct Lifetimes: Codable, Sendable, Equatable {
        public var accessToken = 300
        public var refreshToken = 86_400
        public var haapiAccessToken = 600
        public var authorizationCode = 60
        public var attestationChallenge = 120
        /// At most 86 400: the token endpoint remembers each one it redeemed until it expires.
        public var clientAttestationToken = 60
        public var emailCode = 300
        public var flow = 900
        /// How long a poll may wait for approval on another device.
        public var approvalWait = 120
        public var idToken = 300
        /// The rotation leeway: for this long after a refresh token is first rotated, presenting it again
        /// rotates it once more instead of revoking the family as a replay. It keeps a client that was killed
        /// before it stored the new token signed in (Okta calls it a grace period, Auth0 a reuse interval).
        /// 0 turns it off: every reuse is treated as theft.
        public var refreshTokenReuseGrace = 30

        public init() {}

        /// Every member is optional in the file; what is left out keeps its default.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let d = Lifetimes()
            accessToken = try c.decodeIfPresent(Int.self, forKey: .accessToken) ?? d.accessToken
            refreshToken = try c.decodeIfPresent(Int.self, forKey: .refreshToken) ?? d.refreshToken
            haapiAccessToken = try c.decodeIfPresent(Int.self, forKey: .haapiAccessToken) ?? d.haapiAccessToken
            authorizationCode = try c.decodeIfPresent(Int.self, forKey: .authorizationCode) ?? d.authorizationCode
            attestationChallenge =
                try c.decodeIfPresent(Int.self, forKey: .attestationChallenge) ?? d.attestationChallenge
            clientAttestationToken =
                try c.decodeIfPresent(Int.self, forKey: .clientAttestationToken) ?? d.clientAttestationToken
            emailCode = try c.decodeIfPresent(Int.self, forKey: .emailCode) ?? d.emailCode
            flow = try c.decodeIfPresent(Int.self, forKey: .flow) ?? d.flow
            approvalWait = try c.decodeIfPresent(Int.self, forKey: .approvalWait) ?? d.approvalWait
            idToken = try c.decodeIfPresent(Int.self, forKey: .idToken) ?? d.idToken
            refreshTokenReuseGrace =
                try c.decodeIfPresent(Int.self, forKey: .refreshTokenReuseGrace) ?? d.refreshTokenReuseGrace
        }
    }

    public struct DPoPSettings: Codable, Sendable, Equatable {
        /// Proofs whose `iat` is further than this from the server's clock are refused. At most 86 400.
        public var iatWindowSeconds = 60
        /// A nonce is rotated after this long; the previous one stays valid for one more period.
        public var nonceRotationSeconds = 300
        public var algorithms = ["ES256", "ES384", "ES512", "PS256", "RS256"]
        /// The rate of accepted proofs the replay filter holds without refusing (its memory budget: about
        /// 2 bytes a proof for `iatWindowSeconds`; 4 MiB with the defaults). Past it, proofs are refused with
        /// `Retry-After` until the rate drops.
        public var maxProofsPerSecond = 32_000

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let d = DPoPSettings()
            iatWindowSeconds = try c.decodeIfPresent(Int.self, forKey: .iatWindowSeconds) ?? d.iatWindowSeconds
            nonceRotationSeconds =
                try c.decodeIfPresent(Int.self, forKey: .nonceRotationSeconds) ?? d.nonceRotationSeconds
            algorithms = try c.decodeIfPresent([String].self, forKey: .algorithms) ?? d.algorithms
            maxProofsPerSecond = try c.decodeIfPresent(Int.self, forKey: .maxProofsPerSecond) ?? d.maxProofsPerSecond
        }
    }

    public struct SecuritySettings: Codable, Sendable, Equatable {
        /// Failed password attempts before the account is locked.
        public var maxFailedLogins = 5
        public var lockoutSeconds = 300
        public var passwordHashIterations = 600_000
        public var maxRequestBytes = 64 * 1024
        /// The polling interval the server recommends, in milliseconds.
        public var pollingIntervalMilliseconds = 1_000

        public init() {}

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let d = SecuritySettings()
            maxFailedLogins = try c.decodeIfPresent(Int.self, forKey: .maxFailedLogins) ?? d.maxFailedLogins
            lockoutSeconds = try c.decodeIfPresent(Int.self, forKey: .lockoutSeconds) ?? d.lockoutSeconds
            passwordHashIterations =
                try c.decodeIfPresent(Int.self, forKey: .passwordHashIterations) ?? d.passwordHashIterations
            maxRequestBytes = try c.decodeIfPresent(Int.self, forKey: .maxRequestBytes) ?? d.maxRequestBytes
            pollingIntervalMilliseconds =
                try c.decodeIfPresent(Int.self, forKey: .pollingIntervalMilliseconds) ?? d.pollingIntervalMilliseconds
        }
    }
}

public struct ClientConfiguration: Codable, Sendable, Equatable {
    /// How a client's attestation is checked (docs/ATTESTATION.md): `software` (a JWS by the DPoP key),
    /// `appAttest` (Apple App Attest, with the top-level `appAttest` settings), or `disabled` (anything).
    public enum AttestationPolicy: String, Codable, Sendable { case software, appAttest, disabled }
    public enum AuthenticationMethod: String, Codable, Sendable {
        case none
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
        case privateKeyJWT = "private_key_jwt"
        case clientSecretJWT = "client_secret_jwt"
    }

    public var id: String
    /// The name people see on the sign-in page ("Sign in to …"); the id when absent.
    public var displayName: String?
    /// For secret-based methods. Never logged.
    public var secret: String?
    public var authenticationMethod: AuthenticationMethod
    /// Public keys for `private_key_jwt`, as a JWKS (`{"keys":[…]}`) in JSON text.
    public var jwks: String?
    /// Set for HAAPI clients that obtain their token with a client attestation token.
    public var attestation: AttestationPolicy?
    /// A HAAPI client may get a HAAPI token with plain client credentials (the DCR fallback's clients).
    public var allowWithoutAttestation: Bool
    /// Authorization codes are bound to the flow's DPoP key (`issue-token-bound-authorization-code`).
    public var tokenBoundCodes: Bool
    /// DPoP proofs must carry a server nonce (`use-legacy-dpop=false`).
    public var dpopNonce: Bool
    public var redirectURIs: [String]
    /// The iOS apps (`<Team ID>.<Bundle ID>`) that are this client: an `appAttest` client accepts keys
    /// attested for these apps only (each must be in `appAttest.appIDs`), and the universal-link paths of
    /// its https redirect URIs are published in apple-app-site-association for these apps only.
    public var appIds: [String]
    public var scopes: [String]
    public var requirePKCE: Bool
    public var consent: Bool
    /// Authenticator ids offered to this client, as a choice; when empty (and no `login`), every configured
    /// authenticator that can begin a login.
    public var authenticators: [String]
    /// The login this client walks (an id in `logins`); it takes the place of `authenticators`.
    public var login: String?
    /// Present on a template client for templatized dynamic registration.
    public var dcrTemplate: DCRTemplate?
    /// Per-client lifetimes in seconds; the server-wide `lifetimes` apply when absent.
    public var accessTokenLifetime: Int?
    public var refreshTokenLifetime: Int?
    /// A refresh keeps the refresh token instead of rotating it (seed 003's "Reuse Refresh Tokens"; off by
    /// default, as rotation with reuse detection is the safer behaviour, RFC 9700 §4.14.2).
    public var reuseRefreshTokens: Bool

    public struct DCRTemplate: Codable, Sendable, Equatable {
        /// The client whose `dcr`-scoped token may register clients from this template.
        public var authenticateClientBy: String
    }

    public init(
        id: String, secret: String? = nil, authenticationMethod: AuthenticationMethod = .none, jwks: String? = nil,
        attestation: AttestationPolicy? = nil, allowWithoutAttestation: Bool = false, tokenBoundCodes: Bool = false,
        dpopNonce: Bool = false, redirectURIs: [String] = [], scopes: [String] = [], requirePKCE: Bool = false,
        consent: Bool = false, authenticators: [String] = [], dcrTemplate: DCRTemplate? = nil,
        accessTokenLifetime: Int? = nil, refreshTokenLifetime: Int? = nil, displayName: String? = nil,
        reuseRefreshTokens: Bool = false, appIds: [String] = [], login: String? = nil
    ) {
        self.login = login
        self.reuseRefreshTokens = reuseRefreshTokens
        self.appIds = appIds
        self.id = id
        self.displayName = displayName
        self.secret = secret
        self.authenticationMethod = authenticationMethod
        self.jwks = jwks
        self.attestation = attestation
        self.allowWithoutAttestation = allowWithoutAttestation
        self.tokenBoundCodes = tokenBoundCodes
        self.dpopNonce = dpopNonce
        self.redirectURIs = redirectURIs
        self.scopes = scopes
        self.requirePKCE = requirePKCE
        self.consent = consent
        self.authenticators = authenticators
        self.dcrTemplate = dcrTemplate
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        displayName = try c.decodeIfPresent(String.self, forKey: .displayName)
        secret = try c.decodeIfPresent(String.self, forKey: .secret)
        authenticationMethod =
            try c.decodeIfPresent(AuthenticationMethod.self, forKey: .authenticationMethod)
            ?? (secret == nil ? .none : .clientSecretBasic)
        jwks = try c.decodeIfPresent(String.self, forKey: .jwks)
        attestation = try c.decodeIfPresent(AttestationPolicy.self, forKey: .attestation)
        allowWithoutAttestation = try c.decodeIfPresent(Bool.self, forKey: .allowWithoutAttestation) ?? false
        tokenBoundCodes = try c.decodeIfPresent(Bool.self, forKey: .tokenBoundCodes) ?? false
        dpopNonce = try c.decodeIfPresent(Bool.self, forKey: .dpopNonce) ?? false
        redirectURIs = try c.decodeIfPresent([String].self, forKey: .redirectURIs) ?? []
        appIds = try c.decodeIfPresent([String].self, forKey: .appIds) ?? []
        scopes = try c.decodeIfPresent([String].self, forKey: .scopes) ?? []
        requirePKCE = try c.decodeIfPresent(Bool.self, forKey: .requirePKCE) ?? false
        consent = try c.decodeIfPresent(Bool.self, forKey: .consent) ?? false
        authenticators = try c.decodeIfPresent([String].self, forKey: .authenticators) ?? []
        login = try c.decodeIfPresent(String.self, forKey: .login)
        dcrTemplate = try c.decodeIfPresent(DCRTemplate.self, forKey: .dcrTemplate)
        accessTokenLifetime = try c.decodeIfPresent(Int.self, forKey: .accessTokenLifetime)
        refreshTokenLifetime = try c.decodeIfPresent(Int.self, forKey: .refreshTokenLifetime)
        reuseRefreshTokens = try c.decodeIfPresent(Bool.self, forKey: .reuseRefreshTokens) ?? false
    }

    /// Whether the client may run HAAPI flows at all.
    public var isHaapiClient: Bool { attestation != nil || allowWithoutAttestation }
    public var isConfidential: Bool { authenticationMethod != .none }
}

public struct UserConfiguration: Codable, Sendable, Equatable {
    public var username: String
    /// Hashed with PBKDF2 when the user is first stored; never logged. A user has this or `passwordHash`.
    public var password: String?
    /// A stored hash instead of the password: `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64url, no
    /// padding), with at least `security.passwordHashIterations` iterations. It keeps the password out of
    /// the file, and the server does not hash it again at every start.
    public var passwordHash: String?
    public var email: String?
    public var name: String?

    public init(username: String, password: String, email: String? = nil, name: String? = nil) {
        self.username = username
        self.password = password
        self.email = email
        self.name = name
    }

    public init(username: String, passwordHash: String, email: String? = nil, name: String? = nil) {
        self.username = username
        self.passwordHash = passwordHash
        self.email = email
        self.name = name
    }
}

public enum ConfigurationError: Error, CustomStringConvertible, Equatable {
    case unreadable(String)
    case invalid(String)

    public var description: String {
        switch self {
        case .unreadable(let detail): "cannot read the configuration: \(detail)"
        case .invalid(let detail): "invalid configuration: \(detail)"
        }
    }

    /// What is wrong, where the file says where (`authenticators[2].steps[0].fields[1].accept: …`).
    public var detail: String {
        switch self {
        case .unreadable(let detail): "cannot read it: \(detail)"
        case .invalid(let detail): detail
        }
    }
}

extension ServerConfiguration {
    /// The largest configuration file read (recordings make files of a few hundred KiB).
    static let maxFileBytes = 16 * 1024 * 1024

    /// Parses and checks a configuration; every problem is reported with what to fix, and where the file has
    /// it (`authenticators[2].steps[0].fields[1].accept: …`; a syntax error by line and column). The file is
    /// read once, by our strict parser (RFC 8259: no comments, no trailing commas, no member twice), and
    /// decoded strictly: a key nothing reads is an error, with the key it may have meant.
    public static func load(json data: Data) throws -> ServerConfiguration {
        let document: JSONValue
        do {
            document = try JSONParser(limits: .init(maxBytes: maxFileBytes, maxDepth: 64)).parse(data)
        } catch let error as HaapiDecodingError {
            throw ConfigurationError.invalid(Self.syntaxError(error, in: data))
        }
        var configuration: ServerConfiguration
        do {
            configuration = try StrictDecoder().decode(ServerConfiguration.self, from: document)
        } catch let error as StrictDecodingError {
            throw ConfigurationError.invalid(error.description)
        } catch let DecodingError.keyNotFound(key, context) {
            let why = context.debugDescription.hasPrefix("No value associated") ? "" : " (\(context.debugDescription))"
            throw ConfigurationError.invalid("\(Self.path(context.codingPath + [key])): missing\(why)")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw ConfigurationError.invalid("\(Self.path(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw ConfigurationError.invalid("\(Self.path(context.codingPath)): \(context.debugDescription)")
        }
        try configuration.validate()
        return configuration
    }

    /// A parse error in words a person finds in an editor: line and column (counted in characters) for
    /// syntax and encoding errors, the member's place for one written twice.
    static func syntaxError(_ error: HaapiDecodingError, in data: Data) -> String {
        func position(_ offset: Int) -> String {
            let before = data.prefix(max(0, min(offset, data.count)))
            let line = before.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? before.startIndex
            let column = String(decoding: before[lineStart...], as: UTF8.self).count + 1
            return "line \(line), column \(column)"
        }
        switch error.reason {
        case .syntax(let detail, let offset):
            return "not valid JSON at \(position(offset)): \(detail) (comments and trailing commas are not JSON)"
        case .invalidUTF8(let offset):
            return "not UTF-8 at \(position(offset))"
        default:
            return "not a configuration: \(error)"
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "(root)" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }

    public func validate() throws {
        func duplicates(_ values: [String]) -> [String] {
            Dictionary(grouping: values, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        }
        if let id = duplicates(clients.map(\.id)).first {
            throw ConfigurationError.invalid("client \"\(id)\" is defined twice")
        }
        if let name = duplicates(users.map(\.username)).first {
            throw ConfigurationError.invalid("user \"\(name)\" is defined twice")
        }
        for user in users {
            switch (user.password, user.passwordHash) {
            case (nil, nil):
                throw ConfigurationError.invalid("user \"\(user.username)\" has neither password nor passwordHash")
            case (_?, _?):
                throw ConfigurationError.invalid(
                    "user \"\(user.username)\" has both password and passwordHash; keep one")
            case (nil, let hash?):
                guard let rounds = PasswordHasher.iterations(of: hash) else {
                    throw ConfigurationError.invalid(
                        "user \"\(user.username)\": passwordHash is not a pbkdf2-sha256$<iterations>$<salt>$<hash> value"
                    )
                }
                guard rounds >= security.passwordHashIterations else {
                    throw ConfigurationError.invalid(
                        "user \"\(user.username)\": passwordHash uses \(rounds) iterations, fewer than security.passwordHashIterations (\(security.passwordHashIterations))"
                    )
                }
            case (_?, nil): break
            }
        }
        if let id = duplicates(authenticators.map(\.id)).first {
            let second = authenticators.indices.filter { authenticators[$0].id == id }[1]
            throw ConfigurationError.invalid("authenticators[\(second)].id: authenticator \"\(id)\" is defined twice")
        }
        guard !authenticators.isEmpty else { throw ConfigurationError.invalid("at least one authenticator is needed") }
        for (index, authenticator) in authenticators.enumerated() {
            try authenticator.validate(at: "authenticators[\(index)]")
            if let user = authenticator.user, !users.contains(where: { $0.username == user }) {
                throw ConfigurationError.invalid(
                    "authenticators[\(index)].user: \"\(user)\" is not one of the configured users")
            }
        }
        if let id = duplicates(logins.map(\.id)).first {
            throw ConfigurationError.invalid("login \"\(id)\" is defined twice")
        }
        for (index, login) in logins.enumerated() {
            try login.validate(at: "logins[\(index)]", authenticators: authenticators)
        }
        let authenticatorIDs = Set(authenticators.map(\.id))
        for client in clients {
            if let login = client.login {
                guard logins.contains(where: { $0.id == login }) else {
                    throw ConfigurationError.invalid(
                        "client \"\(client.id)\": login \"\(login)\" is not one of the configured logins (\(logins.map(\.id).joined(separator: ", ")))"
                    )
                }
                guard client.authenticators.isEmpty else {
                    throw ConfigurationError.invalid(
                        "client \"\(client.id)\" names both a login and authenticators; the login says which authenticators it offers"
                    )
                }
            }
            if let alone = client.authenticators.first(where: { id in
                authenticators.first { $0.id == id }.map { !$0.identifiesUser } ?? false
            }) {
                throw ConfigurationError.invalid(
                    "client \"\(client.id)\": authenticator \"\(alone)\" cannot begin a login (it proves the user an earlier step identified); name a login for the client instead"
                )
            }
            if client.isHaapiClient, case .choice(let options)? = login(for: client).steps.first, options.isEmpty {
                throw ConfigurationError.invalid(
                    "client \"\(client.id)\": no authenticator can begin its login; name a login or an authenticator that identifies the user"
                )
            }
            if client.isConfidential, client.authenticationMethod != .privateKeyJWT, (client.secret ?? "").isEmpty {
                throw ConfigurationError.invalid(
                    "client \"\(client.id)\" uses \(client.authenticationMethod.rawValue) but has no secret")
            }
            if client.authenticationMethod == .privateKeyJWT, client.jwks == nil {
                throw ConfigurationError.invalid("client \"\(client.id)\" uses private_key_jwt but has no jwks")
            }
            if client.tokenBoundCodes, !client.dpopNonce {
                throw ConfigurationError.invalid(
                    "client \"\(client.id)\": tokenBoundCodes requires dpopNonce, as on the vendor's server")
            }
            if let unknown = client.authenticators.first(where: { !authenticatorIDs.contains($0) }) {
                throw ConfigurationError.invalid("client \"\(client.id)\" names unknown authenticator \"\(unknown)\"")
            }
            if let template = client.dcrTemplate, !clients.contains(where: { $0.id == template.authenticateClientBy }) {
                throw ConfigurationError.invalid(
                    "client \"\(client.id)\": dcrTemplate.authenticateClientBy names unknown client \"\(template.authenticateClientBy)\""
                )
            }
            for lifetime in [client.accessTokenLifetime, client.refreshTokenLifetime].compactMap({ $0 })
            where lifetime < 1 {
                throw ConfigurationError.invalid("client \"\(client.id)\": lifetimes must be positive, not \(lifetime)")
            }
            for uri in client.redirectURIs { try Self.validateRedirectURI(uri, of: client.id) }
            for id in client.appIds where !AppleAppID.isValid(id) {
                throw ConfigurationError.invalid(
                    "client \"\(client.id)\": appIds: \"\(id)\" must be <Team ID>.<Bundle Identifier>, e.g. 1ABC23DEF4.com.example.app"
                )
            }
            if client.attestation == .appAttest, let appAttest {
                guard !client.appIds.isEmpty else {
                    throw ConfigurationError.invalid(
                        "client \"\(client.id)\" uses the appAttest policy: name its apps in \"appIds\" (a key attested for another app is refused)"
                    )
                }
                if let other = client.appIds.first(where: { !appAttest.appIDs.contains($0) }) {
                    throw ConfigurationError.invalid(
                        "client \"\(client.id)\": appIds: \"\(other)\" is not in appAttest.appIDs, so no key of it can be attested"
                    )
                }
            }
        }
        guard (0...300).contains(lifetimes.refreshTokenReuseGrace) else {
            // Longer than a few minutes and reuse detection no longer catches a stolen refresh token in time.
            throw ConfigurationError.invalid(
                "lifetimes.refreshTokenReuseGrace must be 0…300 seconds, not \(lifetimes.refreshTokenReuseGrace)")
        }
        if let unknown = dpop.algorithms.first(where: {
            !["ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "RS256", "RS384", "RS512"].contains($0)
        }) {
            throw ConfigurationError.invalid("dpop.algorithms: \"\(unknown)\" is not an asymmetric JWS algorithm")
        }
        if security.maxRequestBytes < 1024 || security.maxFailedLogins < 1 || dpop.iatWindowSeconds < 1
            || dpop.nonceRotationSeconds < 1 || !(1...10_000_000).contains(dpop.maxProofsPerSecond)
        {
            throw ConfigurationError.invalid(
                "security and dpop limits must be positive (maxRequestBytes at least 1024, dpop.maxProofsPerSecond at most 10000000)"
            )
        }
        // The replay caches keep a proof or a single-use token until it could no longer pass: a day is far
        // more than either should live.
        guard dpop.iatWindowSeconds <= 86_400, lifetimes.clientAttestationToken <= 86_400 else {
            throw ConfigurationError.invalid(
                "dpop.iatWindowSeconds and lifetimes.clientAttestationToken must be at most 86400 seconds")
        }
        try authHub?.validate()
        try passkeys.validate()
        try associatedApps?.validate()
        try appAttest?.validate()
        if let client = clients.first(where: { $0.attestation == .appAttest }), appAttest == nil {
            throw ConfigurationError.invalid(
                "client \"\(client.id)\" uses the appAttest policy: add \"appAttest\": {\"appIDs\": [\"<Team ID>.<Bundle ID>\"]}"
            )
        }
        if security.passwordHashIterations < 600_000 {
            throw ConfigurationError.invalid(
                "security.passwordHashIterations must be at least 600000 (OWASP 2023 for PBKDF2-HMAC-SHA256)")
        }
    }

    /// Schemes a redirect would run or read locally in a browser: never a place to send a code to.
    static let refusedRedirectSchemes: Set<String> = ["javascript", "data", "vbscript", "file"]

    /// A redirect URI must be absolute, of a scheme that names a place (not code or local data), without a
    /// fragment (RFC 6749 §3.1.2); an https one on this server is published for universal links, where a
    /// `*` in its path would be a wildcard.
    static func validateRedirectURI(_ uri: String, of client: String) throws {
        guard let url = URLComponents(string: uri), let scheme = url.scheme?.lowercased() else {
            throw ConfigurationError.invalid("client \"\(client)\": redirect URI \"\(uri)\" is not absolute")
        }
        if refusedRedirectSchemes.contains(scheme) {
            throw ConfigurationError.invalid(
                "client \"\(client)\": redirect URI \"\(uri)\": the \(scheme): scheme runs or reads in the browser; use the app's own scheme or an https URL"
            )
        }
        if url.fragment != nil {
            throw ConfigurationError.invalid(
                "client \"\(client)\": redirect URI \"\(uri)\" has a fragment (RFC 6749 §3.1.2)")
        }
        if scheme == "https", url.percentEncodedPath.contains("*") {
            throw ConfigurationError.invalid(
                "client \"\(client)\": redirect URI \"\(uri)\": a * in the path would be a wildcard in apple-app-site-association; write it %2A"
            )
        }
    }
}
