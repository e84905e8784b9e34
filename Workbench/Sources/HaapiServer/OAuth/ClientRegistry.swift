import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRules

/// A client as the server treats it: a static one from the configuration, or a dynamic one registered
/// from a template (it inherits the template's settings and authenticates with its own secret).
struct ResolvedClient: Sendable {
    let configuration: ClientConfiguration
    let dynamicSecretHash: String?

    var id: String { configuration.id }
    var isDynamic: Bool { dynamicSecretHash != nil }
}

struct ClientRegistry: Sendable {
    let staticClients: [String: ClientConfiguration]
    let store: ServerStore

    init(configuration: ServerConfiguration, store: ServerStore) {
        staticClients = Dictionary(uniqueKeysWithValues: configuration.clients.map { ($0.id, $0) })
        self.store = store
    }

    /// The configured or dynamically registered client `id`; nil when there is none. A failure of the
    /// database is a 500, never "unknown client".
    func client(id: String) async throws(Rejection) -> ResolvedClient? {
        if let configuration = staticClients[id] {
            RequestTrace.client(id)
            return ResolvedClient(configuration: configuration, dynamicSecretHash: nil)
        }
        guard let dynamic = try await Rejection.unlessStoreFails({ try await store.dynamicClient(id: id) }),
            var template = staticClients[dynamic.templateID]
        else {
            return nil
        }
        template.id = dynamic.id
        template.secret = nil
        template.authenticationMethod = .clientSecretBasic
        template.dcrTemplate = nil
        template.allowWithoutAttestation = true
        RequestTrace.client(id)
        return ResolvedClient(configuration: template, dynamicSecretHash: dynamic.secretHash)
    }
}

/// Why client authentication failed; `invalid_client` on the wire (RFC 6749 §5.2), unless the database
/// failed while looking the client up (`storeFailure`: a 500).
struct ClientAuthenticationFailure: Error {
    let description: String
    /// `oauth.client-unknown` or `oauth.client-authentication`.
    var rule: Rule = .clientAuthentication
    /// What was expected and what came, for the server's log line (never the secret).
    var detail: String? = nil
    var storeFailure: Rejection? = nil
}

/// Authenticates the caller of the token, revocation and introspection endpoints:
/// client_secret_basic, client_secret_post, private_key_jwt, client_secret_jwt, or a public client by id.
struct ClientAuthenticator: Sendable {
    let registry: ClientRegistry
    let assertionReplay: SingleUseCache

    /// `audiences` gives the values an assertion's `aud` may hold (the token endpoint URL, the issuer); it is
    /// called only for an assertion, so other clients do not pay for building the set.
    func authenticate(
        authorization: String?, form: [String: String], audiences: () -> Set<String>, now: Date
    ) async throws(ClientAuthenticationFailure) -> ResolvedClient {
        if let authorization, HTTP.hasAuthScheme(authorization, "basic") {
            return try await basic(String(authorization.dropFirst(6)), form: form)
        }
        if let assertionType = form["client_assertion_type"], assertionType == AssertionTypes.jwtBearer {
            return try await assertion(form, audiences: audiences(), now: now)
        }
        guard let clientID = form["client_id"] else {
            throw ClientAuthenticationFailure(
                description: "unknown client", rule: .clientUnknown,
                detail: "client_id: expected a registered client, got none (and no Authorization or client assertion)")
        }
        RequestTrace.client(clientID)
        guard let client = try await lookUp(clientID) else {
            throw ClientAuthenticationFailure(
                description: "unknown client", rule: .clientUnknown,
                detail: "client_id: \(clientID.prefix(100)) is not registered")
        }
        if let secret = form["client_secret"] {
            guard client.configuration.authenticationMethod == .clientSecretPost || client.isDynamic else {
                throw ClientAuthenticationFailure(
                    description: "client_secret_post is not allowed for this client",
                    detail:
                        "\(client.id) authenticates with \(client.configuration.authenticationMethod.rawValue), got client_secret_post"
                )
            }
            guard verifySecret(secret, of: client) else {
                throw ClientAuthenticationFailure(
                    description: "wrong client secret",
                    detail: "client_secret: not \(client.id)'s (a secret of \(secret.count) chars came)")
            }
            return client
        }
        guard client.configuration.authenticationMethod == .none else {
            throw ClientAuthenticationFailure(
                description: "client authentication required",
                detail:
                    "\(client.id) authenticates with \(client.configuration.authenticationMethod.rawValue), got only client_id"
            )
        }
        return client
    }

    /// The client `id` from the registry, a database failure carried in the failure.
    private func lookUp(_ id: String) async throws(ClientAuthenticationFailure) -> ResolvedClient? {
        do throws(Rejection) {
            return try await registry.client(id: id)
        } catch {
            throw ClientAuthenticationFailure(description: "the client could not be looked up", storeFailure: error)
        }
    }

    private func basic(
        _ encoded: String, form: [String: String]
    ) async throws(ClientAuthenticationFailure) -> ResolvedClient {
        // The colon found among the bytes: a search by `Character` would segment graphemes on every request.
        guard let text = Self.basicCredentials(HTTP.trimmingOWS(encoded)),
            let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")),
            let clientID = FormURLEncoding.decodeComponent(text[..<colon]),
            let secret = FormURLEncoding.decodeComponent(text[text.utf8.index(after: colon)...])
        else {
            throw ClientAuthenticationFailure(
                description: "malformed Basic credentials",
                detail: "Authorization: expected Basic base64(client_id:secret), got something else")
        }
        RequestTrace.client(String(clientID.prefix(100)))
        if let formID = form["client_id"], formID != clientID {
            throw ClientAuthenticationFailure(
                description: "client_id does not match the Basic credentials",
                detail: "client_id: the form names \(formID.prefix(100)), Authorization \(clientID.prefix(100))")
        }
        guard let client = try await lookUp(clientID), client.configuration.isConfidential,
            verifySecret(secret, of: client)
        else {
            throw ClientAuthenticationFailure(
                description: "wrong client credentials", detail: "Basic credentials: not those of a confidential client"
            )
        }
        guard [.clientSecretBasic, .clientSecretPost].contains(client.configuration.authenticationMethod) else {
            throw ClientAuthenticationFailure(
                description: "client_secret_basic is not allowed for this client",
                detail:
                    "\(client.id) authenticates with \(client.configuration.authenticationMethod.rawValue), got client_secret_basic"
            )
        }
        return client
    }

    /// The `user-id:password` text of Basic credentials (RFC 7617): padded standard base64 of UTF-8, decoded
    /// strictly (canonical padding and trailing bits), or nil.
    static func basicCredentials(_ encoded: String) -> String? {
        let symbols = Array(encoded.utf8)
        guard !symbols.isEmpty, symbols.count % 4 == 0, symbols.count <= 4096 else { return nil }
        let padding = symbols.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        guard padding <= 2 else { return nil }
        // The standard alphabet differs from base64url in two symbols; anything else is left for the strict
        // decoder to refuse ("-" and "_" first become invalid, so they cannot slip through as their twins).
        var urlSafe: [UInt8] = []
        urlSafe.reserveCapacity(symbols.count)
        for symbol in symbols.dropLast(padding) {
            switch symbol {
            case UInt8(ascii: "+"): urlSafe.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): urlSafe.append(UInt8(ascii: "_"))
            case UInt8(ascii: "-"), UInt8(ascii: "_"): return nil
            default: urlSafe.append(symbol)
            }
        }
        return Base64URL.decode(utf8: urlSafe).flatMap { String(strictUTF8: $0) }
    }

    private func verifySecret(_ secret: String, of client: ResolvedClient) -> Bool {
        if let hash = client.dynamicSecretHash { return ConstantTime.equals(TokenHash.of(secret), hash) }
        guard let expected = client.configuration.secret else { return false }
        return ConstantTime.equals(secret, expected)
    }

    /// RFC 7523 client assertions: `iss` = `sub` = client id, `aud` the token endpoint, a fresh `exp`, a unique `jti`.
    private func assertion(
        _ form: [String: String], audiences: Set<String>, now: Date
    ) async throws(ClientAuthenticationFailure) -> ResolvedClient {
        guard let token = form["client_assertion"], let jws = try? CompactJWS(parsing: token),
            let claims = try? jws.payloadObject(),
            let issuer = claims["iss"]?.stringValue, claims["sub"]?.stringValue == issuer
        else {
            throw ClientAuthenticationFailure(
                description: "malformed client assertion",
                detail: "client_assertion: expected a JWS whose iss and sub are the client id")
        }
        RequestTrace.client(String(issuer.prefix(100)))
        if let formID = form["client_id"], formID != issuer {
            throw ClientAuthenticationFailure(
                description: "client_id does not match the assertion",
                detail: "client_id: the form names \(formID.prefix(100)), the assertion \(issuer.prefix(100))")
        }
        guard let client = try await lookUp(issuer), !client.isDynamic else {
            throw ClientAuthenticationFailure(
                description: "unknown client", rule: .clientUnknown,
                detail: "iss: \(issuer.prefix(100)) is not a registered client that may send assertions")
        }
        let key: JWK
        let allowed: Set<JWSAlgorithm>
        switch client.configuration.authenticationMethod {
        case .privateKeyJWT:
            guard let jwks = client.configuration.jwks, let found = Self.key(in: jwks, for: jws) else {
                throw ClientAuthenticationFailure(
                    description: "no registered key matches the assertion",
                    detail: "kid: no key of \(client.id)'s jwks matches the assertion's header")
            }
            key = found
            allowed = Set(JWSAlgorithm.allCases.filter(\.isAsymmetric))
        case .clientSecretJWT:
            guard let secret = client.configuration.secret,
                let secretKey = try? JWK(json: ["kty": "oct", "k": .string(Base64URL.encode(secret))])
            else {
                throw ClientAuthenticationFailure(
                    description: "client has no secret",
                    detail: "\(client.id) has no secret to check a client_secret_jwt with")
            }
            key = secretKey
            allowed = [.hs256, .hs384, .hs512]
        default:
            throw ClientAuthenticationFailure(
                description: "client assertions are not allowed for this client",
                detail:
                    "\(client.id) authenticates with \(client.configuration.authenticationMethod.rawValue), got a client assertion"
            )
        }
        do {
            try jws.verify(with: key, allowedAlgorithms: allowed)
        } catch {
            throw ClientAuthenticationFailure(
                description: "client assertion: \(error)", detail: "client_assertion: \(error)")
        }
        let audience: [String]
        switch claims["aud"] {
        case .string(let single)?: audience = [single]
        case .array(let many)?: audience = many.compactMap(\.stringValue)
        default: audience = []
        }
        guard audience.contains(where: audiences.contains) else {
            throw ClientAuthenticationFailure(
                description: "client assertion has the wrong aud",
                detail:
                    "aud: expected the token endpoint or the issuer, got \(audience.joined(separator: ", ").prefix(200))"
            )
        }
        guard let expiry = claims["exp"]?.numberValue?.intValue, Double(expiry) > now.timeIntervalSince1970,
            Double(expiry) < now.timeIntervalSince1970 + 600
        else {
            throw ClientAuthenticationFailure(
                description: "client assertion expired or lives too long", detail: "exp: expected within the next 600 s"
            )
        }
        guard let jti = claims["jti"]?.stringValue,
            await assertionReplay.register(
                jti: jti, jkt: "assertion:" + issuer, until: Date(timeIntervalSince1970: Double(expiry)), now: now)
        else {
            throw ClientAuthenticationFailure(
                description: "client assertion replayed or without jti",
                detail: "jti: missing, or this assertion was used before")
        }
        return client
    }

    private static func key(in jwksText: String, for jws: CompactJWS) -> JWK? {
        guard let jwks = try? JSONParser().parse(jwksText), case .array(let keys)? = jwks["keys"] else { return nil }
        let candidates = keys.compactMap { try? JWK(json: $0) }
        if let kid = jws.header["kid"]?.stringValue, let match = candidates.first(where: { $0.keyID == kid }) {
            return match
        }
        return candidates.first { $0.keyType == jws.algorithm?.keyType }
    }
}
