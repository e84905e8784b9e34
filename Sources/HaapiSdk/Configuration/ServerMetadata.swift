import Foundation

/// The endpoints an authorization server publishes in its discovery document (RFC 8414, OpenID Connect
/// Discovery), as far as this SDK uses them.
public struct ServerMetadata: Sendable, Equatable {
    /// The issuer, as the document names it (checked against the one asked for).
    public let issuer: URL
    /// The authorization endpoint.
    public let authorizationEndpoint: URL
    /// The token endpoint.
    public let tokenEndpoint: URL
    /// The revocation endpoint, when the server has one.
    public let revocationEndpoint: URL?
    /// The introspection endpoint, when the server has one.
    public let introspectionEndpoint: URL?
    /// The dynamic client registration endpoint, when the server has one.
    public let registrationEndpoint: URL?
    /// The OpenID Connect UserInfo endpoint, when the server has one.
    public let userinfoEndpoint: URL?

    /// Reads `<issuer>/.well-known/openid-configuration`.
    ///
    /// The document must name the same issuer it was fetched for (RFC 8414 §3.3): a document that names
    /// another one could send the app's credentials to a server it did not choose, so it is refused. The
    /// authorization and token endpoints are required; every endpoint must be an absolute http(s) URL.
    public static func fetch(
        issuer: URL, transport: any HTTPTransport = defaultHTTPTransport()
    ) async throws(HaapiError) -> ServerMetadata {
        let trimmed =
            issuer.absoluteString.hasSuffix("/") ? String(issuer.absoluteString.dropLast()) : issuer.absoluteString
        guard let wellKnown = URL(string: trimmed + "/.well-known/openid-configuration"),
            issuer.scheme == "https" || issuer.scheme == "http"
        else {
            throw .invalidConfiguration(reason: "the issuer \(issuer.absoluteString) is not an http(s) URL")
        }
        let response: HTTPResponse
        do {
            response = try await LostAnswerRetry.run(method: "GET", url: wellKnown) { () async throws(TransportError) in
                try await transport.send(
                    HTTPRequest(method: "GET", url: wellKnown, headers: [("Accept", "application/json")]))
            }
        } catch {
            throw .communication(
                message: "the discovery document at \(wellKnown.absoluteString) could not be fetched (\(error))",
                cause: error)
        }
        guard response.statusCode == 200 else { throw .invalidStatusCode(statusCode: response.statusCode) }
        return try parse(response.oauthObject(), issuer: trimmed)
    }

    /// Checks and reads a discovery document fetched for `issuer` (without a trailing slash).
    static func parse(_ document: JSONObject, issuer: String) throws(HaapiError) -> ServerMetadata {
        guard let named = document["issuer"]?.stringValue else {
            throw .invalidConfiguration(reason: "the discovery document names no issuer")
        }
        guard named == issuer || named == issuer + "/", let issuerURL = URL(string: named) else {
            throw .invalidConfiguration(reason: "the discovery document names the issuer \(named), not \(issuer)")
        }
        func endpoint(_ member: String) throws(HaapiError) -> URL? {
            guard let value = document[member] else { return nil }
            guard let text = value.stringValue, let url = URL(string: text),
                url.scheme == "https" || url.scheme == "http", url.host != nil
            else {
                throw .invalidConfiguration(
                    reason: "\(member) in the discovery document is not an absolute http(s) URL")
            }
            return url
        }
        guard let authorization = try endpoint("authorization_endpoint"), let token = try endpoint("token_endpoint")
        else {
            throw .invalidConfiguration(reason: "the discovery document lacks authorization_endpoint or token_endpoint")
        }
        return ServerMetadata(
            issuer: issuerURL, authorizationEndpoint: authorization, tokenEndpoint: token,
            revocationEndpoint: try endpoint("revocation_endpoint"),
            introspectionEndpoint: try endpoint("introspection_endpoint"),
            registrationEndpoint: try endpoint("registration_endpoint"),
            userinfoEndpoint: try endpoint("userinfo_endpoint"))
    }
}

extension HaapiConfiguration {
    /// A configuration built from the server's discovery document: the endpoints come from `issuer`'s
    /// metadata (`ServerMetadata.fetch`), the rest from the arguments, which mean what they mean in
    /// `init(name:clientId:baseURL:…)`. `baseURL` (which resolves relative links in representations) is the
    /// issuer.
    ///
    /// ```swift
    /// let configuration = try await HaapiConfiguration.discover(
    ///     issuer: URL(string: "https://login.example.com")!, clientId: "haapi-demo", appRedirect: "app://haapi")
    /// ```
    public static func discover(
        issuer: URL,
        clientId: String,
        appRedirect: String,
        name: String? = nil,
        httpHeadersProvider: HttpHeadersProvider? = nil,
        authorizationParametersProvider: OAuthAuthorizationParametersProvider? = nil,
        applicationBundle: Bundle? = nil,
        isAutoRedirect: Bool = true,
        transport: (any HTTPTransport)? = nil,
        minTokenTTL: TimeInterval = 10,
        attestationConfiguration: AttestationConfiguration = AttestationConfiguration(),
        attester: (any Attester)? = nil,
        tokenBoundConfiguration: any TokenBoundConfiguration = BoundedTokenConfiguration(),
        tokenEndpointResponseListener: (any TokenEndpointResponseListener)? = nil,
        clientAuthenticationMethod: any ClientAuthenticationMethod = ClientAuthenticationMethodNone(),
        dpopKeyStorage: (any Storage)? = HaapiConfiguration.defaultDPoPKeyStorage(),
        dpopKey: (any SigningKey)? = nil,
        requestTimeout: TimeInterval? = nil
    ) async throws(HaapiError) -> HaapiConfiguration {
        let fetching = transport ?? defaultHTTPTransport()
        let metadata = try await ServerMetadata.fetch(
            issuer: issuer, transport: requestTimeout.map { DeadlineTransport(fetching, seconds: $0) } ?? fetching)
        return HaapiConfiguration(
            name: name ?? clientId, clientId: clientId, baseURL: metadata.issuer,
            tokenEndpointURL: metadata.tokenEndpoint,
            authorizationEndpointURL: metadata.authorizationEndpoint, appRedirect: appRedirect,
            httpHeadersProvider: httpHeadersProvider,
            authorizationParametersProvider: authorizationParametersProvider, applicationBundle: applicationBundle,
            isAutoRedirect: isAutoRedirect,
            transport: transport, revocationEndpointURL: metadata.revocationEndpoint,
            introspectionEndpointURL: metadata.introspectionEndpoint,
            minTokenTTL: minTokenTTL, attestationConfiguration: attestationConfiguration, attester: attester,
            tokenBoundConfiguration: tokenBoundConfiguration,
            tokenEndpointResponseListener: tokenEndpointResponseListener,
            clientAuthenticationMethod: clientAuthenticationMethod, dpopKeyStorage: dpopKeyStorage, dpopKey: dpopKey,
            requestTimeout: requestTimeout)
    }
}
